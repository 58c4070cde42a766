#if os(Linux)
    import Fetch
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif
    import Testing

    /// The two transports that open WebSockets over libcurl on Linux, for parameterised tests.
    enum WebSocketTransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case curl
        case urlSession

        var testDescription: String { rawValue }

        /// A transport of this kind; `options` only apply to ``CurlTransport``.
        func make(options: CurlTransport.Options = CurlTransport.Options()) throws -> any WebSocketTransport {
            switch self {
            case .curl:
                try CurlTransport(options: options)
            case .urlSession:
                URLSessionTransport(configuration: .ephemeral)
            }
        }
    }

    extension WebSocketTransport {
        /// The handshake's answer (a `101` carrying a channel, or another status), or the failure.
        func openWebSocket(
            _ url: URL, maximumMessageSize: Int = 16 << 20, timeout: TimeInterval? = nil
        ) async throws -> Response {
            var request = APIRequest(url)
            request.timeout = timeout
            return try await withCheckedThrowingContinuation { continuation in
                _ = openWebSocket(request, maximumMessageSize: maximumMessageSize) { continuation.resume(with: $0) }
            }
        }

        /// The channel of a handshake that must succeed.
        func channel(_ url: URL, maximumMessageSize: Int = 16 << 20) async throws -> any WebSocketChannel {
            let response = try await openWebSocket(url, maximumMessageSize: maximumMessageSize)
            #expect(response.status == 101)
            return try #require(response.webSocketChannel)
        }
    }

    extension WebSocketChannel {
        func receive() async throws -> WebSocketChannelEvent {
            try await withCheckedThrowingContinuation { continuation in
                receive { continuation.resume(with: $0) }
            }
        }

        func send(_ message: WebSocketMessage) async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                send(message) { error in
                    continuation.resume(with: error.map { .failure($0) } ?? .success(()))
                }
            }
        }

        func ping() async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                ping { error in
                    continuation.resume(with: error.map { .failure($0) } ?? .success(()))
                }
            }
        }

        /// The next message, which must be text.
        func receiveText() async throws -> String {
            let event = try await receive()
            guard case .message(.text(let text)) = event else {
                throw TestServerError("expected a text message, got \(event)")
            }
            return text
        }
    }

    /// What the server's `/report` scenario says the connection opened with `?id=` recorded: the client's close code
    /// and reason (`[]` for an empty close), the bytes `/flood` sent, or nil for nothing.
    func closeReport(_ id: String, from server: WebSocketTestServer, transport: any WebSocketTransport)
        async throws -> [String]?
    {
        let channel = try await transport.channel(try server.url("/report?id=\(id)"))
        let text = try await channel.receiveText()
        channel.close(code: .normalClosure, reason: "")
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        guard let close = object?["report"] as? [Any] else {
            return nil
        }
        return close.map { "\($0)" }
    }
#endif
