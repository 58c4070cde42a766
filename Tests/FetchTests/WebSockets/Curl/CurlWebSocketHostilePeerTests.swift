#if os(Linux)
    @testable import Fetch
    import Foundation
    import Testing

    /// WebSocket peers that attack the libcurl connection (both Linux transports open WebSockets through it): a ping
    /// flood from a server that reads nothing, and subprotocols the client never offered.
    @Suite(.timeLimit(.minutes(2))) struct CurlWebSocketHostilePeerTests {
        struct Socket: Request {
            let url: URL
            var headers: HeaderFields = [:]
        }

        let server: WebSocketTestServer

        init() throws {
            server = try WebSocketTestServer.plain.get()
        }

        // MARK: - Control frames

        /// The largest pong the client writes: a 2-byte header, the 4-byte mask and 125 bytes of payload.
        static let largestPong = 2 + 4 + 125

        @Test(arguments: WebSocketTransportKind.allCases)
        func aPingFloodFromAServerThatReadsNothingQueuesOnePong(kind: WebSocketTransportKind) async throws {
            // 300,000 pings of 125 bytes: 39 MB of pongs, far more than the kernel's buffers take, so the client's
            // writes block and every pong it cannot write waits in its outbox.
            let response = try await kind.make().openWebSocket(try server.url("/ping-flood?count=300000"))
            let channel = try #require(response.webSocketChannel as? CurlWebSocketChannel)
            #expect(try await channel.receive() == .message(.text("done")))
            let queued = await withCheckedContinuation { continuation in
                channel.measureQueuedControlBytes { continuation.resume(returning: $0) }
            }
            // The pong being written, and one that answers the latest ping.
            #expect(queued <= 2 * Self.largestPong, "\(queued) bytes of control frames wait to be written")
            channel.cancel()
        }

        @Test func pingsMadeWhileWritesAreBlockedShareOneFrame() async throws {
            let response = try await CurlTransport().openWebSocket(try server.url("/ping-flood?count=300000"))
            let channel = try #require(response.webSocketChannel as? CurlWebSocketChannel)
            #expect(try await channel.receive() == .message(.text("done")))
            for _ in 0..<1000 {
                channel.ping { _ in }  // fails with cancelled at the end: the server answers none
            }
            let queued = await withCheckedContinuation { continuation in
                channel.measureQueuedControlBytes { continuation.resume(returning: $0) }
            }
            // The pongs above, and one ping of 2 + 4 + 8 bytes that the 1,000 share (the server answers none).
            #expect(queued <= 2 * Self.largestPong + 14, "\(queued) bytes of control frames wait to be written")
            channel.cancel()
        }

        // MARK: - Subprotocols

        @Test(arguments: SessionFace.allCases)
        func aSubprotocolTheClientDidNotOfferFailsTheHandshakeNamingBoth(face: SessionFace) async throws {
            let (session, finish) = try face.makeSession()
            defer { finish() }
            let unasked = Socket(url: try server.url("/echo?protocol=superchat"))
            let error = await #expect(throws: FetchError.self) { try await session.webSocket(unasked) }
            guard case .webSocketHandshakeFailed(let reason, let response) = error?.fetchKind else {
                Issue.record("expected webSocketHandshakeFailed, got \(String(describing: error))")
                return
            }
            #expect(response.status == 101)
            #expect(reason.contains(#""superchat", which was not offered (the request offered none)"#), "\(reason)")

            let other = Socket(
                url: try server.url("/echo?protocol=v3.chat"), headers: ["Sec-WebSocket-Protocol": "v1.chat, v2.chat"])
            let otherError = await #expect(throws: FetchError.self) { try await session.webSocket(other) }
            guard case .webSocketHandshakeFailed(let otherReason, _) = otherError?.fetchKind else {
                Issue.record("expected webSocketHandshakeFailed, got \(String(describing: otherError))")
                return
            }
            #expect(otherReason.contains(#""v3.chat", which was not offered"#), "\(otherReason)")
            #expect(otherReason.contains(#"offered "v1.chat, v2.chat""#), "\(otherReason)")
        }

        @Test(arguments: SessionFace.allCases)
        func aSubprotocolTheClientOfferedIsAccepted(face: SessionFace) async throws {
            let (session, finish) = try face.makeSession()
            defer { finish() }
            let socket = try await session.webSocket(
                Socket(
                    url: try server.url("/echo?protocol=v2.chat"),
                    headers: ["Sec-WebSocket-Protocol": "v1.chat, v2.chat"]))
            #expect(socket.response.headers["Sec-WebSocket-Protocol"] == "v2.chat")
            try await socket.send("hi")
            var messages = socket.makeAsyncIterator()
            #expect(try await messages.next() == .text("hi"))
            socket.close()
        }
    }
#endif
