#if os(Linux) && !FETCH_APPLE_BRANCHES
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    // MARK: - WebSocketTransport

    /// swift-corelibs-foundation has no WebSocket where its libcurl lacks `ws` (7.88 on Debian), so on Linux the
    /// URLSession transport opens them as ``CurlTransport`` does, over the same libcurl, with the default TLS
    /// settings: the system's certificate authorities, verification on, nothing pinned.
    extension URLSessionTransport: WebSocketTransport {
        /// The libcurl that WebSockets use, loaded on first use, or why it cannot be.
        private static let webSocketLibrary = Result { try CurlLibrary.load(CurlLibrary.defaultName) }

        /// Opens a WebSocket over libcurl with default TLS settings; fails with ``FetchError/transport(_:request:)``
        /// when libcurl cannot be loaded.
        package func openWebSocket(
            _ request: any Request,
            maximumMessageSize: Int,
            compression: WebSocket.Compression,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> any CancellableCall {
            do {
                _ = try Self.webSocketLibrary.get()
            } catch {
                completion(.failure(CurlWebSocketOpening.transportError(.unsupportedURL, "\(error)", request: request)))
                return CompletedCall()
            }
            return CurlWebSocketOpening.open(
                request, options: CurlTransport.Options(),
                defaultTimeout: urlSession.configuration.timeoutIntervalForRequest,
                maximumMessageSize: maximumMessageSize, compression: compression, completion: completion)
        }
    }
#endif
