/// The server broke RFC 6455: the client must send a close frame with ``closeCode`` and fail the connection.
package struct WebSocketViolation: Error, Sendable, Equatable {
    /// The code of the close frame the client answers with: 1002 (protocol error), 1007 (invalid UTF-8) or 1009
    /// (message too big).
    package let closeCode: Int
    /// What came back, in words, for ``FetchError/webSocketClosed(code:reason:request:)``: "the server sent a frame
    /// with reserved opcode 3".
    package let reason: String

    /// A violation answered with `closeCode`, described by `reason`.
    package init(closeCode: Int, reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    /// Close code 1002: the frames break the protocol.
    package static func protocolError(_ reason: String) -> WebSocketViolation {
        WebSocketViolation(closeCode: 1002, reason: reason)
    }
}

// MARK: - CustomStringConvertible

extension WebSocketViolation: CustomStringConvertible {
    /// The reason and the close code it calls for.
    package var description: String { "\(reason) (close code \(closeCode))" }
}
