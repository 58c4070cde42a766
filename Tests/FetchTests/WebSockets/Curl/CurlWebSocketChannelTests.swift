#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    /// The libcurl WebSocket connection (`openWebSocket` on both Linux transports, and its channel) against the
    /// loopback server of `websocket_server.py`.
    @Suite(.timeLimit(.minutes(2))) struct CurlWebSocketChannelTests {
        let server: WebSocketTestServer

        init() throws {
            server = try WebSocketTestServer.plain.get()
        }

        // MARK: - Messages

        @Test(arguments: WebSocketTransportKind.allCases, [0, 125, 126, 65535, 65536, 1 << 20])
        func echoesTextAndBinaryMessagesAtEveryLengthBoundary(kind: WebSocketTransportKind, length: Int) async throws {
            let channel = try await kind.make().channel(try server.url("/echo"))
            let text = String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2)
            try await channel.send(.text(text))
            #expect(try await channel.receive() == .message(.text(text)))
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try await channel.send(.binary(bytes))
            #expect(try await channel.receive() == .message(.binary(bytes)))
            channel.close(code: .normalClosure, reason: "")
        }

        @Test func answersTheServersPingWithAPongCarryingItsPayload() async throws {
            let channel = try await CurlTransport().channel(try server.url("/ping"))
            #expect(try await channel.receiveText() == "pong:are you there")
            channel.cancel()
        }

        @Test func pingCompletesWhenItsPongArrives() async throws {
            let channel = try await CurlTransport().channel(try server.url("/echo"))
            try await channel.ping()
            try await channel.ping()
            try await channel.send(.text("after the pings"))
            #expect(try await channel.receive() == .message(.text("after the pings")))
            channel.cancel()
        }

        @Test func bytesThatArriveWithTheHeadAreTheFirstFrame() async throws {
            // The server writes the 101 head and a frame at once: often in one read of the client.
            let channel = try await CurlTransport().channel(try server.url("/raw?hex=810568656c6c6f"))
            #expect(try await channel.receive() == .message(.text("hello")))
            channel.cancel()
        }

        @Test func aConsumerThatStopsReceivingHoldsTheServerBack() async throws {
            let transport = try CurlTransport()
            let id = UUID().uuidString
            let channel = try await transport.channel(try server.url("/flood?id=\(id)"))
            #expect(try await channel.receive() == .message(.binary(Data(repeating: 0x66, count: 65536))))
            // No more receives: the channel keeps one message and libcurl's buffers, and TCP stops the server.
            let report = try await closeReport(id, from: server, transport: transport)
            let sent = try #require(
                report?.first.flatMap { Int($0) }, "the server reported \(String(describing: report))")
            #expect(sent < 40 << 20, "the server could send \(sent >> 20) MiB of 100 to a client that stopped reading")
            channel.cancel()
        }

        @Test func aFragmentedMessageWithAPingBetweenItsFragmentsArrivesWhole() async throws {
            // Text "foo" without FIN, a ping, the continuation "baz" with FIN, then a binary message.
            let hex = "0103666f6f" + "890170" + "800362617a" + "820201ff"
            let channel = try await CurlTransport().channel(try server.url("/raw?hex=\(hex)"))
            #expect(try await channel.receive() == .message(.text("foobaz")))
            #expect(try await channel.receive() == .message(.binary(Data([0x01, 0xFF]))))
            channel.cancel()
        }

        // MARK: - Closing

        @Test func theClientsCloseIsAnsweredAndReported() async throws {
            let transport = try CurlTransport()
            let id = UUID().uuidString
            let channel = try await transport.channel(try server.url("/echo?id=\(id)"))
            channel.close(code: try #require(WebSocket.CloseCode(rawValue: 4000)), reason: "bye now")
            #expect(try await channel.receive() == .closed(code: 4000, reason: ""))
            #expect(try await closeReport(id, from: server, transport: transport) == ["4000", "bye now"])
            await #expect(throws: FetchError.self) { try await channel.send(.text("too late")) }
        }

        @Test func theServersCloseIsEchoedWithItsCode() async throws {
            let transport = try CurlTransport()
            let id = UUID().uuidString
            let channel = try await transport.channel(try server.url("/close?code=4001&reason=done&id=\(id)"))
            #expect(try await channel.receive() == .closed(code: 4001, reason: "done"))
            #expect(try await channel.receive() == .closed(code: 4001, reason: "done"))  // and for every later one
            #expect(try await closeReport(id, from: server, transport: transport) == ["4001", ""])
        }

        @Test func aCloseTheServerNeverAnswersEndsAfterFiveSecondsWithTheCodeSent() async throws {
            let channel = try await CurlTransport().channel(try server.url("/deaf"))
            let started = ContinuousClock.now
            channel.close(code: try #require(WebSocket.CloseCode(rawValue: 4002)), reason: "anyone?")
            #expect(try await channel.receive() == .closed(code: 4002, reason: "anyone?"))
            // Not before the closing timeout; after it, as soon as the loop's thread gets to run (on a loaded machine,
            // under Thread Sanitizer, several seconds later), within a bound that only a loop that never gave up
            // would pass.
            let waited = ContinuousClock.now - started
            #expect(waited >= .seconds(4.9) && waited < .seconds(60), "waited \(waited)")
        }

        @Test func aDropWithoutACloseFrameFailsWith1006() async throws {
            let channel = try await CurlTransport().channel(try server.url("/drop"))
            let error = await #expect(throws: FetchError.self) { try await channel.receive() }
            guard case .webSocketClosed(let code, let reason, let request) = error?.fetchKind else {
                Issue.record("expected webSocketClosed, got \(String(describing: error))")
                return
            }
            #expect(code == 1006)
            #expect(reason.contains("without a close frame"))
            #expect(request?.url.path == "/drop")
        }

        @Test func cancelFailsWhatWaitsWithCancelled() async throws {
            let channel = try await CurlTransport().channel(try server.url("/raw?hex="))
            let waiting = Task { try await channel.receive() }
            channel.cancel()  // before or after the receive reaches the loop: either way it fails with cancelled
            let error = await #expect(throws: FetchError.self) { try await waiting.value }
            guard case .cancelled = error?.fetchKind else {
                Issue.record("expected cancelled, got \(String(describing: error))")
                return
            }
        }

        // MARK: - Hostile frames

        /// A frame that breaks RFC 6455, the close code the client must send back, and the maximum message size.
        struct HostileFrame: Sendable, CustomTestStringConvertible {
            let name: String
            let hex: String
            let code: Int
            var maximumMessageSize = 1 << 20
            var testDescription: String { name }
        }

        static let hostileFrames = [
            HostileFrame(name: "a masked server frame", hex: "818501020304" + "6967686d6e", code: 1002),
            HostileFrame(name: "RSV1 set", hex: "c100", code: 1002),
            HostileFrame(name: "a reserved opcode", hex: "8300", code: 1002),
            HostileFrame(name: "a fragmented ping", hex: "0900", code: 1002),
            HostileFrame(name: "invalid UTF-8 text", hex: "8102c328", code: 1007),
            HostileFrame(name: "a message over the limit", hex: "827e0020", code: 1009, maximumMessageSize: 16),
        ]

        @Test(arguments: hostileFrames)
        func aHostileFrameIsAnsweredWithTheRightCloseCode(frame: HostileFrame) async throws {
            let transport = try CurlTransport()
            let id = UUID().uuidString
            let channel = try await transport.channel(
                try server.url("/raw?hex=\(frame.hex)&id=\(id)"), maximumMessageSize: frame.maximumMessageSize)
            let error = await #expect(throws: FetchError.self) { try await channel.receive() }
            guard case .webSocketClosed(let code, _, _) = error?.fetchKind else {
                Issue.record("expected webSocketClosed, got \(String(describing: error))")
                return
            }
            #expect(code == frame.code)
            let report = try await closeReport(id, from: server, transport: transport)
            #expect(report?.first == "\(frame.code)", "the server received \(String(describing: report))")
        }

        // MARK: - The handshake

        @Test(arguments: ["/status/401", "/status/401?chunked=1"])
        func aRefusalIsAResponseWithItsStatusAndBody(path: String) async throws {
            let response = try await CurlTransport().openWebSocket(try server.url(path))
            #expect(response.status == 401)
            #expect(response.webSocketChannel == nil)
            let body = try JSONSerialization.jsonObject(with: try #require(response.data)) as? [String: Any]
            #expect(body?["error"] as? String == "refused")
        }

        @Test func aWrongAcceptFailsTheHandshake() async throws {
            let error = await #expect(throws: FetchError.self) {
                try await CurlTransport().openWebSocket(try server.url("/bad-accept"))
            }
            guard case .webSocketHandshakeFailed(let reason, let response) = error?.fetchKind else {
                Issue.record("expected webSocketHandshakeFailed, got \(String(describing: error))")
                return
            }
            #expect(response.status == 101)
            #expect(reason.localizedCaseInsensitiveContains("accept"), "\(reason)")
        }

        @Test func cancellingWhileConnectingEndsWithCancelledAtOnce() async throws {
            let transport = try CurlTransport()
            var request = APIRequest(try server.url("/silent"))
            request.timeout = 30
            let started = ContinuousClock.now
            let result = try await withCheckedThrowingContinuation { continuation in
                let handle = transport.openWebSocket(request, maximumMessageSize: 1 << 20) { result in
                    continuation.resume(returning: result)
                }
                handle.cancel()
            }
            guard case .cancelled(let named) = result.failureKind else {
                Issue.record("expected cancelled, got \(result)")
                return
            }
            #expect(named?.url == request.url)
            #expect(ContinuousClock.now - started < .seconds(5))
        }

        @Test func aSilentServerTimesOutNamingTheRequest() async throws {
            let error = await #expect(throws: FetchError.self) {
                try await CurlTransport().openWebSocket(try server.url("/silent"), timeout: 0.5)
            }
            guard case .timedOut(let request, let seconds) = error?.fetchKind else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                return
            }
            #expect(request?.url.path == "/silent")
            #expect(seconds == 0.5)
        }

        @Test func aClosedPortFailsWithCannotConnect() async throws {
            let error = await #expect(throws: FetchError.self) {
                try await CurlTransport().openWebSocket(try #require(URL(string: "ws://127.0.0.1:1/echo")))
            }
            guard case .transport(let urlError, let request) = error?.fetchKind else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(urlError.code == .cannotConnectToHost)
            #expect(request?.url.port == 1)
        }
    }
#endif
