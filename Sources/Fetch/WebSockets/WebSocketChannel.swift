import Foundation

/// One open WebSocket connection as a transport hands it to ``WebSocket``: whole messages in and out, with the
/// framing, the masking, the answers to the server's pings and the closing handshake done underneath.
///
/// Over libcurl (Linux) Fetch frames the bytes itself; over `URLSessionWebSocketTask` (Apple platforms) Foundation
/// does; FetchTesting's double plays a script. A channel reads ahead of its receives only within a small bound, so
/// a consumer that falls behind holds back the server instead of filling memory.
///
/// Every completion is called exactly once, on any thread. A channel that is released without being closed drops
/// its connection.
package protocol WebSocketChannel: AnyObject, Sendable {
    /// Receives the next message. At most one receive is outstanding at a time.
    ///
    /// - Parameter completion: Called with the next message; with ``WebSocketChannelEvent/closed(code:reason:)``
    ///   once the server's close frame has arrived (the connection is then closed, and every later receive gets the
    ///   same); or with the failure that ended the connection: ``FetchError/webSocketClosed(code:reason:request:)``
    ///   for a protocol violation (after sending the close frame RFC 6455 asks for: 1002, 1007, 1009) or a drop
    ///   without a close frame (1006), ``FetchError/cancelled(request:)`` after ``cancel()``.
    func receive(_ completion: @escaping @Sendable (Result<WebSocketChannelEvent, any Error>) -> Void)

    /// Sends `message` as one frame, masked.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - completion: Called with `nil` once the frame is handed to the network, or with the failure (the
    ///     connection has closed or failed).
    func send(_ message: WebSocketMessage, _ completion: @escaping @Sendable ((any Error)?) -> Void)

    /// Sends a ping.
    ///
    /// - Parameter completion: Called with `nil` when its pong arrives, or with the failure that ended the
    ///   connection first.
    func ping(_ completion: @escaping @Sendable ((any Error)?) -> Void)

    /// Starts the closing handshake: sends a close frame with `code` and `reason` (at most 123 bytes of UTF-8),
    /// then waits a few seconds for the server's, and drops the connection. A waiting receive completes with
    /// ``WebSocketChannelEvent/closed(code:reason:)`` carrying what the server sent (or the code sent, if it sent
    /// none in time).
    func close(code: WebSocket.CloseCode, reason: String)

    /// Drops the connection at once, with no closing handshake: whatever is waiting fails with
    /// ``FetchError/cancelled(request:)``.
    func cancel()
}

/// What a ``WebSocketChannel`` receives.
package enum WebSocketChannelEvent: Sendable, Equatable {
    /// A whole message.
    case message(WebSocketMessage)

    /// The closing handshake is done: `code` is the code the server's close frame carried (`nil` for none), and
    /// `reason` its reason.
    case closed(code: Int?, reason: String)
}

/// A ``Transport`` that opens WebSockets: both of Fetch's, and FetchTesting's doubles.
package protocol WebSocketTransport: Transport {
    /// Opens a WebSocket with the opening handshake of `request`, as the middlewares passed it on (a `GET` with
    /// `Upgrade: websocket`, `Connection: Upgrade` and `Sec-WebSocket-Version: 13`; the transport adds the key).
    ///
    /// - Parameters:
    ///   - request: The handshake request; its URL's scheme is `ws`, `wss`, `http` or `https`.
    ///   - maximumMessageSize: The largest message the channel accepts; a larger one closes the connection with
    ///     1009 and ``FetchError/webSocketClosed(code:reason:request:)``.
    ///   - compression: Whether to offer permessage-deflate (a transport that cannot compress offers nothing).
    ///   - completion: Called exactly once: with the `101` head carrying the channel (``Response/webSocketChannel``)
    ///     once the handshake has been checked; with the response of any other status, its body (up to 64 KiB) in
    ///     ``Response/data``; or with the failure (``FetchError/webSocketHandshakeFailed(reason:_:)`` for a `101`
    ///     that breaks RFC 6455).
    /// - Returns: A handle that cancels the handshake.
    func openWebSocket(
        _ request: any Request,
        maximumMessageSize: Int,
        compression: WebSocket.Compression,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall
}

extension WebSocketTransport {
    /// Opens a WebSocket that offers permessage-deflate: see
    /// ``openWebSocket(_:maximumMessageSize:compression:completion:)``.
    package func openWebSocket(
        _ request: any Request,
        maximumMessageSize: Int,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        openWebSocket(request, maximumMessageSize: maximumMessageSize, compression: .deflate, completion: completion)
    }
}
