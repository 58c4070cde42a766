/// The limits every behaviour is held to.
enum HostileBounds {
    /// Each request's `timeout`.
    static let timeout: Double = 3

    /// Each session's `maximumResponseSize`: 8 MiB.
    static let maximumResponseSize = 8 << 20

    /// The longest a behaviour may take: its timeout, and slack for a machine whose two cores run the rest of the
    /// suite beside it. An `eventsWindow` behaviour takes its window instead of the timeout.
    static let timeBound: Duration = .seconds(timeout + 5)

    /// How long a child waits for a call before it reports it as hung and ends itself (the parent starts another
    /// for the next behaviour).
    static let hardDeadline: Duration = .seconds(10)

    /// How long the parent waits for a behaviour's end line before it kills the child and starts another: only a
    /// child whose own deadline could not fire.
    static let watchdog: Duration = .seconds(30)

    /// The most the process's peak resident memory may rise during one behaviour: the 8 MiB limit, a copy or two of
    /// it, and the transport's own buffers; far below the 400 MB bodies, the 10 MB head and the 1 GiB gzip bomb.
    static let memoryBound = 64 << 20

    /// How long an `eventsWindow` behaviour reads its events before cancelling.
    static let eventsWindow: Duration = .seconds(2)

    /// The most connections an `eventsWindow` behaviour may open within its window: a stream that reconnects at
    /// once in a loop opens thousands; one with any floor on its wait (100 ms and up), 20 at most.
    static let maximumConnections = 25
}
