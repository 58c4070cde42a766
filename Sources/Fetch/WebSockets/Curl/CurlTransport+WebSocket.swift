#if os(Linux)
    import Foundation

    // MARK: - WebSocketTransport

    extension CurlTransport: WebSocketTransport {
        /// Opens a WebSocket over libcurl with the transport's TLS settings (CA file, pins): see
        /// ``CurlWebSocketOpening``.
        package func openWebSocket(
            _ request: any Request,
            maximumMessageSize: Int,
            compression: WebSocket.Compression,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> any CancellableCall {
            CurlWebSocketOpening.open(
                request, options: options, defaultTimeout: Self.defaultTimeout, maximumMessageSize: maximumMessageSize,
                compression: compression, completion: completion)
        }
    }
#endif
