/// The kind of a WebSocket frame (RFC 6455 §5.2): the data opcodes 0-2 and the control opcodes 8-10; the others
/// are reserved, and a frame carrying one is a protocol error.
package enum WebSocketOpcode: UInt8, Sendable {
    /// The next fragment of the message that a text or binary frame without FIN started.
    case continuation = 0
    /// The first frame of a text message.
    case text = 1
    /// The first frame of a binary message.
    case binary = 2
    /// The closing handshake: an optional code and reason.
    case close = 8
    /// A ping, which the peer answers with a pong carrying the same payload.
    case ping = 9
    /// The answer to a ping (or an unsolicited heartbeat).
    case pong = 10

    /// Whether this is a control frame's opcode (close, ping, pong): at most 125 bytes, never fragmented, and
    /// allowed between the fragments of a message.
    package var isControl: Bool { rawValue & 0x08 != 0 }
}
