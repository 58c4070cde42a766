import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSockets through a `Session` on each transport, end to end against an independent implementation: the Python
/// `websockets` package on loopback, which fails the connection if the client breaks RFC 6455 (an unmasked frame, a
/// bad close code, text that is not UTF-8).
@Suite(.serialized) struct SessionWebSocketTests {
    struct Socket: Request {
        let url: URL
        var headers: HeaderFields = [:]
    }

    struct Note: Codable, Equatable {
        let id: Int
        let text: String
    }

    let server: WebSocketsServer
    /// This test's connections are opened with it, so that counting them counts no other suite's on the same server.
    let tag = UUID().uuidString

    init() throws {
        server = try WebSocketsServer.running()
    }

    /// `path` with this test's tag.
    private func tagged(_ path: String) -> String {
        "\(path)?tag=\(tag)"
    }

    private func open(
        _ path: String, on transport: SessionTransport, headers: HeaderFields = [:],
        maximumMessageSize: Int = WebSocket.defaultMaximumMessageSize
    ) async throws -> WebSocket {
        try await makeSession(transport).webSocket(
            Socket(url: server.url(tagged(path)), headers: headers), maximumMessageSize: maximumMessageSize)
    }

    /// The body of the server's plain-HTTP `path`, as an integer.
    private func count(_ path: String) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: server.url(tagged(path), scheme: "http"))
        return try #require(Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test(arguments: SessionTransport.allCases)
    func textAndBinaryEchoAtEveryLengthBoundary(on transport: SessionTransport) async throws {
        let socket = try await open("/echo", on: transport)
        var iterator = socket.makeAsyncIterator()
        for length in [0, 1, 125, 126, 127, 65535, 65536, 1 << 20] {
            let text = String(repeating: "é", count: length / 2) + (length % 2 == 1 ? "a" : "")
            try await socket.send(text)
            #expect(try await iterator.next() == .text(text), "text of \(length) bytes")
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try await socket.send(bytes)
            #expect(try await iterator.next() == .binary(bytes), "binary of \(length) bytes")
        }
        socket.close()
        #expect(try await iterator.next() == nil)
    }

    /// A flood read as fast as it comes: the read-ahead fills and frees room while the loop decodes (a race that
    /// once left whole messages in the decoder with nothing to wake it).
    @Test(.timeLimit(.minutes(1)), arguments: SessionTransport.allCases)
    func aFloodArrivesWholeAndInOrder(on transport: SessionTransport) async throws {
        for _ in 0..<3 {
            let socket = try await open("/flood/3000", on: transport)
            var received = 0
            for try await message in socket {
                guard message == .text(String(received)) else {
                    Issue.record("message \(received) was \(message)")
                    return
                }
                received += 1
            }
            #expect(received == 3000)
            #expect(socket.closeCode == .normalClosure)
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func anEncodableGoesAsJSONTextAndDecodes(on transport: SessionTransport) async throws {
        let socket = try await open("/echo", on: transport)
        try await socket.send(json: Note(id: 7, text: "hello"))
        var iterator = socket.makeAsyncIterator()
        let echoed = try #require(try await iterator.next())
        #expect(echoed == .text(#"{"id":7,"text":"hello"}"#))
        #expect(try echoed.decode(Note.self) == Note(id: 7, text: "hello"))
        socket.close()
    }

    @Test(arguments: SessionTransport.allCases)
    func theServersPingIsAnsweredAndOursGetsItsPong(on transport: SessionTransport) async throws {
        let socket = try await open("/ping", on: transport)
        var messages: [WebSocketMessage] = []
        for try await message in socket {
            messages.append(message)
        }
        #expect(messages == [.text("pong received")])
        #expect(socket.closeCode == .normalClosure)

        let echo = try await open("/echo", on: transport)
        try await echo.ping()
        try await echo.ping()
        echo.close()
    }

    @Test(arguments: SessionTransport.allCases)
    func aNormalCloseEndsTheSequenceAndOthersThrowTheirCode(on transport: SessionTransport) async throws {
        let normal = try await open("/close/1000", on: transport)
        for try await message in normal {
            Issue.record("no message expected, got \(message)")
        }
        #expect(normal.closeCode == .normalClosure)
        #expect(normal.closeReason == "bye")

        for code in [1011, 4001] {
            let socket = try await open("/close/\(code)", on: transport)
            await #expect {
                for try await _ in socket {}
            } throws: { error in
                guard case .webSocketClosed(let closed, let reason, let request) = error.fetchKind else {
                    return false
                }
                return closed == code && reason.contains("bye") && request?.url.path == "/close/\(code)"
            }
            #expect(socket.closeCode?.rawValue == UInt16(code))
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func closingWithACodeIsACleanClosingHandshake(on transport: SessionTransport) async throws {
        let socket = try await open("/echo", on: transport)
        try await socket.send("last")
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("last"))
        socket.close(code: try #require(WebSocket.CloseCode(rawValue: 4000)), reason: "done for today")
        #expect(try await iterator.next() == nil)
        // The server echoed the code: a close it could not parse would have been answered with 1002.
        #expect(socket.closeCode?.rawValue == 4000)
        await #expect(throws: FetchError.self) { try await socket.send("after the close") }
    }

    @Test(arguments: SessionTransport.allCases)
    func aMessageOverTheLimitClosesWith1009(on transport: SessionTransport) async throws {
        let socket = try await open("/echo", on: transport, maximumMessageSize: 1000)
        try await socket.send(Data(count: 1001))
        await #expect {
            for try await _ in socket {}
        } throws: { error in
            guard case .webSocketClosed(1009, let reason, _) = error.fetchKind else {
                return false
            }
            return reason.contains("1000")
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func aSubprotocolIsAskedForWithAHeaderAndAgreedInTheResponse(on transport: SessionTransport) async throws {
        let socket = try await open("/subprotocol", on: transport, headers: ["Sec-WebSocket-Protocol": "chat.v1"])
        #expect(socket.response.headers["sec-websocket-protocol"] == "chat.v1")
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("chat.v1"))
        socket.close()
    }

    @Test(arguments: SessionTransport.allCases)
    func theHandshakeIsAuthenticatedRefreshedOnceAndObserved(on transport: SessionTransport) async throws {
        let refreshes = Locked(0)
        let tokens = BearerAuthenticator(token: "stale") {
            refreshes.withLock { $0 += 1 }
            return "good"
        }
        let events = Locked<[FetchEvent]>([])
        let session = try makeSession(transport)
        let socket = try await session.with(
            .observe { event in events.withLock { $0.append(event) } }, .authenticate(with: tokens)
        ).webSocket(Socket(url: server.url("/auth")))
        try await socket.send("authenticated")
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("authenticated"))
        socket.close()
        #expect(refreshes.withLock { $0 } == 1)
        let finished = events.withLock { $0 }.compactMap { event -> Int? in
            event.name == .finished ? event.status : nil
        }
        #expect(finished == [101])
    }

    @Test(arguments: SessionTransport.allCases)
    func aRefusedHandshakeThrowsTheStatusAndItsBody(on transport: SessionTransport) async throws {
        await #expect {
            _ = try await open("/auth", on: transport)
        } throws: { error in
            guard case .unacceptableStatus(let response) = error.fetchKind else {
                return false
            }
            return response.status == 401 && response.data == Data(#"{"error":true,"reason":"bad token"}"#.utf8)
                && response.originalRequest.url.path == "/auth"
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func cancellingTheIteratingTaskClosesTheConnection(on transport: SessionTransport) async throws {
        let socket = try await open("/echo", on: transport)
        let reader = Task {
            for try await _ in socket {}
        }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        await #expect(throws: FetchError.self) { try await reader.value }
        try await expectNoConnectionsLeft()
    }

    @Test(arguments: SessionTransport.allCases)
    func twoHundredConnectionsOpenAndCloseWithNoneLeftOpen(on transport: SessionTransport) async throws {
        let session = try makeSession(transport)
        let before = try await count("/handshakes")
        for index in 0..<200 {
            let socket = try await session.webSocket(Socket(url: server.url(tagged("/echo"))))
            if index.isMultiple(of: 2) {
                socket.close()
            }
            // The odd ones are let go of without a close: that closes them too.
        }
        #expect(try await count("/handshakes") - before == 200)
        try await expectNoConnectionsLeft()
    }

    /// Waits (up to 10 s) until the server has no WebSocket connection open.
    private func expectNoConnectionsLeft() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        var open = try await count("/connections")
        while open > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            open = try await count("/connections")
        }
        #expect(open == 0, "connections left open on the server")
    }
}

/// The same client against a second independent implementation, Autobahn|Python: echoes at the length boundaries, a
/// fragmented message with a ping between its frames, and close codes, on each transport.
@Suite struct AutobahnPeerTests {
    let server: WebSocketsServer

    init() throws {
        server = try WebSocketsServer.autobahn.get()
    }

    private func open(_ path: String, on transport: SessionTransport) async throws -> WebSocket {
        try await makeSession(transport).webSocket(SessionWebSocketTests.Socket(url: server.url(path)))
    }

    @Test(arguments: SessionTransport.allCases)
    func echoesAtEveryLengthBoundary(on transport: SessionTransport) async throws {
        let socket = try await open("/echo", on: transport)
        var iterator = socket.makeAsyncIterator()
        for length in [0, 125, 126, 65535, 65536] {
            let text = String(repeating: "z", count: length)
            try await socket.send(text)
            #expect(try await iterator.next() == .text(text), "text of \(length) bytes")
            try await socket.send(Data(text.utf8))
            #expect(try await iterator.next() == .binary(Data(text.utf8)), "binary of \(length) bytes")
        }
        socket.close()
        #expect(try await iterator.next() == nil)
        #expect(socket.closeCode == .normalClosure)
    }

    @Test(arguments: SessionTransport.allCases)
    func aFragmentedMessageWithAPingBetweenItsFramesArrivesWhole(on transport: SessionTransport) async throws {
        let socket = try await open("/fragments", on: transport)
        var messages: [WebSocketMessage] = []
        for try await message in socket {
            messages.append(message)
        }
        #expect(messages == [.text("Hello, fragmented world")])
        #expect(socket.closeCode == .normalClosure)
    }

    @Test(arguments: SessionTransport.allCases)
    func aCloseCodeOfTheApplicationsOwnIsThrownWithItsReason(on transport: SessionTransport) async throws {
        let socket = try await open("/close/4001", on: transport)
        await #expect {
            for try await _ in socket {}
        } throws: { error in
            guard case .webSocketClosed(4001, let reason, _) = error.fetchKind else {
                return false
            }
            return reason.contains("bye")
        }
    }
}
