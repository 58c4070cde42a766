#if os(Linux)
    import Foundation

    /// A ``WebSocketChannel`` over libcurl: every call becomes a command that ``CurlWebSocketLoop``'s thread runs on
    /// the channel's ``CurlWebSocketConnection``, so no lock guards the connection and no call blocks.
    ///
    /// Releasing the channel drops its connection (without a closing handshake) and frees it.
    final class CurlWebSocketChannel: WebSocketChannel {
        /// The loop that owns the connection.
        private let loop: CurlWebSocketLoop
        /// The connection's key in the loop.
        private let identifier: UInt64
        /// The messages the loop read ahead, which a receive takes without going through the loop.
        private let readAhead: CurlWebSocketReadAhead

        /// Hands `handover` to `loop`, which owns it from now on.
        init(_ handover: CurlWebSocketHandover, loop: CurlWebSocketLoop) {
            self.loop = loop
            readAhead = handover.readAhead
            identifier = loop.makeIdentifier()
            loop.adopt(handover, as: identifier)
        }

        deinit {
            loop.release(identifier)
        }

        // MARK: - WebSocketChannel

        /// Takes the next message read ahead, or asks the loop for it (see ``WebSocketChannel/receive(_:)``).
        func receive(_ completion: @escaping @Sendable (Result<WebSocketChannelEvent, any Error>) -> Void) {
            guard let (message, freedRoom) = readAhead.take() else {
                loop.run(.receive(completion), on: identifier)
                return
            }
            if freedRoom {
                loop.run(.resume, on: identifier)
            }
            completion(.success(.message(message)))
        }

        /// Queues `message` as one masked frame (see ``WebSocketChannel/send(_:_:)``).
        func send(_ message: WebSocketMessage, _ completion: @escaping @Sendable ((any Error)?) -> Void) {
            loop.run(.send(message, completion), on: identifier)
        }

        /// Sends a ping that its pong completes (see ``WebSocketChannel/ping(_:)``).
        func ping(_ completion: @escaping @Sendable ((any Error)?) -> Void) {
            loop.run(.ping(completion), on: identifier)
        }

        /// Starts the closing handshake (see ``WebSocketChannel/close(code:reason:)``).
        func close(code: WebSocket.CloseCode, reason: String) {
            loop.run(.close(code: code.value, reason: reason), on: identifier)
        }

        /// Reports the bytes of control frames the connection has queued and not written (see
        /// ``CurlWebSocketConnection/queuedControlBytes``), after every command sent before it.
        func measureQueuedControlBytes(_ report: @escaping @Sendable (Int) -> Void) {
            loop.run(.measure(report), on: identifier)
        }

        /// Drops the connection at once (see ``WebSocketChannel/cancel()``).
        func cancel() {
            loop.run(.cancel, on: identifier)
        }
    }
#endif
