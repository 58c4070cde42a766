/// What one behaviour did to one face, as the child reports it to the parent on its `END` line.
struct HostileResult: Codable, Sendable {
    enum Outcome: String, Codable, Sendable {
        /// The call succeeded.
        case ok
        /// The call failed.
        case error
        /// The call had not ended by ``HostileBounds/hardDeadline``: the child reported it so and ended itself.
        case hung
    }

    var outcome: Outcome
    /// The request's method and the path (with its query) of its URL, which an error's message must name.
    var method: String
    var path: String
    var milliseconds: Int
    /// How far the process's peak resident memory rose during the behaviour, in bytes.
    var memoryGrowth: Int
    /// What the call ended with, in a word: `12 bytes`, `timedOut`, `transport(-1005)`, `unacceptableStatus(500)`.
    var kind: String
    /// The error's description, or what the call returned.
    var message: String
    /// For an `eventsWindow` behaviour, how many connections the server saw.
    var connections: Int?
}
