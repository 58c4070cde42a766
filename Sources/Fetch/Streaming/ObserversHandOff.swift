/// The observers that a stream which reconnects hands to the performer's call for each of its connections, across
/// ``ResponseStreaming/stream(_:errorParser:)``, which has no parameter for them.
///
/// The stream sets one as ``current`` around each call; the performer's pipeline takes it when it starts the call
/// (``RequestPerforming/stream(_:errorParser:)``), so that every connection reports to the first one's observers and
/// an observer hears the whole stream, its waits between connections included. It is taken once: a call that a
/// middleware starts inside (a token refresh, say) makes observers of its own. A streamer that is not a pipeline
/// never takes it, and its connections report to no one.
///
/// `Sendable`: its mutable state is behind `observers`' lock.
package final class ObserversHandOff: Sendable {
    /// The hand-off for the stream call the current task is making, if any.
    @TaskLocal package static var current: ObserversHandOff?

    private let observers: Locked<EventObservers?>

    package init(_ observers: EventObservers) {
        self.observers = Locked(observers)
    }

    /// The observers handed over to the current task's stream call, the first time it is asked; `nil` after, or
    /// when none were handed over.
    package static func take() -> EventObservers? {
        current?.observers.withLock { observers in
            defer { observers = nil }
            return observers
        }
    }
}
