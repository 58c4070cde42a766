import Foundation

extension WebSocket {
    /// How a WebSocket behaves over its life: the largest message it accepts, whether it reopens after a drop, and
    /// what a later release adds. Make one, set what differs from the defaults, and open the socket with
    /// ``RequestPerforming/webSocket(_:errorParser:configuration:scheduler:)``:
    ///
    /// ```swift
    /// var configuration = WebSocket.Configuration()
    /// configuration.reconnectPolicy = ReconnectPolicy()
    /// let socket = try await session.webSocket(ChatRoom(id: 7), configuration: configuration)
    /// ```
    ///
    /// A struct of settings with defaults, so that a release can add one without breaking an app's code.
    public struct Configuration: Sendable {
        /// The largest message accepted, in bytes; a larger one closes the connection with 1009 and
        /// ``FetchError/webSocketClosed(code:reason:request:)``. The default is
        /// ``WebSocket/defaultMaximumMessageSize``, 16 MiB.
        public var maximumMessageSize: Int = WebSocket.defaultMaximumMessageSize

        /// How to reopen the connection after it drops, or `nil` (the default) not to.
        public var reconnectPolicy: ReconnectPolicy?

        /// Whether messages are compressed, when the server agrees. The default is ``WebSocket/Compression/deflate``.
        public var compression: Compression = .deflate

        /// The defaults.
        public init() {}
    }
}
