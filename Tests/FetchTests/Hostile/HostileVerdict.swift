/// What became of one behaviour on one face, as the parent saw it.
enum HostileVerdict: Sendable {
    /// The child reported the behaviour's end.
    case finished(HostileResult)
    /// The child process ended (a crash, a trap) while it ran the behaviour; `output` is the end of what it printed.
    case died(status: Int32, output: String)
    /// The child printed no end for the behaviour within ``HostileBounds/watchdog``, so the parent killed it.
    case killed(output: String)
}
