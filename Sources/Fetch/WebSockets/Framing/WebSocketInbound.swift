import Foundation

/// What ``WebSocketFrameDecoder`` hands on: a whole data message, or a control frame (which may arrive between the
/// fragments of a message, and is handed on at once).
package enum WebSocketInbound: Sendable, Equatable {
    /// A whole text or binary message, its fragments joined; a text's UTF-8 checked.
    case message(WebSocketMessage)
    /// A ping with its payload (at most 125 bytes), which the client answers with a pong carrying the same.
    case ping(Data)
    /// A pong with its payload.
    case pong(Data)
    /// A valid close frame: `code` nil for an empty payload; `reason` checked UTF-8.
    case close(code: Int?, reason: String)
}
