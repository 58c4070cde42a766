import Foundation

extension WebSocket {
    /// How a WebSocket behaves over its life: the largest message it accepts, how it checks that the server is still
    /// there, how long a send may wait, whether it reopens after a drop, and what a later release adds. Make one, set
    /// what differs from the defaults, and open the socket with
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

        /// The keepalive: how long, in seconds, after the last pong the socket sends the next ping, or `nil` (the
        /// default) for no pings. 30 s suits most connections that live for long.
        ///
        /// A connection whose pong does not come within ``pongTimeout`` ends as a drop (1006), which a
        /// ``reconnectPolicy`` reopens: a server that froze, or a network path that went silent, is noticed within
        /// the interval plus the timeout, even while nothing else is sent. Off by default because a pong waits for
        /// the messages queued before its ping, and over libcurl for every socket's messages on one thread: on a slow
        /// machine large messages held pongs past 10 s and dropped healthy connections. Turn it on for connections
        /// that must notice a silent server.
        public var pingInterval: TimeInterval?

        /// How long, in seconds, the keepalive's ping waits for its pong before the connection counts as dropped.
        /// The default is 10 s.
        ///
        /// The time counts from the ping, and the ping goes out after the messages sent before it: raise it when one
        /// message can take longer than this to write (16 MiB over a slow link). Over libcurl every socket of the
        /// process shares one thread that frames, compresses and checks messages, so a very large message on one
        /// socket delays the pongs of the others too.
        public var pongTimeout: TimeInterval = 10

        /// How long, in seconds, a ``WebSocket/send(_:)-(WebSocketMessage)`` or a ``WebSocket/ping()`` waits before
        /// it throws ``FetchError/timedOut(request:seconds:)``, or `nil` (the default) to wait until the message is
        /// handed to the network, the pong comes or the connection ends (which the keepalive bounds).
        ///
        /// A timeout or a cancelled task ends only the wait: the connection stays open, and a message already
        /// queued may still go out. Call ``WebSocket/close(code:reason:)`` to give up on the connection.
        public var sendTimeout: TimeInterval?

        /// Code run after each reconnection, before the iteration delivers the new connection's first message: to
        /// subscribe again to what the old connection had, say. `nil` (the default) for none.
        ///
        /// The socket it is given is the one that reconnected: sending on it sends on the new connection. If it
        /// throws, the connection closes with 1000 and the iteration throws the error; a drop meanwhile reconnects
        /// again, and runs it again.
        public var onReconnect: (@Sendable (WebSocket) async throws -> Void)?

        /// Whether messages are compressed, when the server agrees. The default is ``WebSocket/Compression/deflate``.
        public var compression: Compression = .deflate

        /// The defaults.
        public init() {}
    }
}
