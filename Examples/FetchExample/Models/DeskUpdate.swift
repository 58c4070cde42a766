import Foundation

/// A message on the live desk channel (``API/liveDesk(at:)``), either way: the server's `event` updates and `echo`
/// of what the client posted, and the client's `post`.
struct DeskUpdate: Codable, Equatable, Sendable {
    /// `event`, `echo` or `post`.
    let kind: String
    let text: String
}
