import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The WebSocket connection over FetchTesting's scripted server: messages, closes, drops, reconnection and the
/// handshake as a pipeline call, with no network.
@Suite struct WebSocketTests {
    struct Room: Request {
        var url = URL(string: "ws://chat.test/rooms/7")!
        var headers: HeaderFields = [:]
    }

    struct Line: Codable, Equatable {
        let text: String
    }

    /// Every message of `socket` until the sequence ends, or the error that ended it.
    private static func drain(_ socket: WebSocket) async -> ([WebSocketMessage], (any Error)?) {
        var messages: [WebSocketMessage] = []
        do {
            for try await message in socket {
                messages.append(message)
            }
            return (messages, nil)
        } catch {
            return (messages, error)
        }
    }

    @Test func theServersMessagesArriveInOrderAndTheSequenceEndsWithItsClose() async throws {
        let server = MockWebSocket([
            .message(.text("welcome")), .message(.binary(Data([0, 1, 2]))), .close(code: .normalClosure, reason: "bye"),
        ])
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        let (messages, error) = await Self.drain(socket)
        #expect(error == nil)
        #expect(messages == [.text("welcome"), .binary(Data([0, 1, 2]))])
        #expect(socket.closeCode == .normalClosure)
        #expect(socket.closeReason == "bye")
        #expect(socket.response.status == 101)
    }

    @Test func whatTheClientSendsIsRecordedAndAnsweredByTheReply() async throws {
        let server = MockWebSocket { sent in [.message(sent), .close(code: .normalClosure, reason: "")] }
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        try await socket.send(json: Line(text: "hi"))
        let (messages, _) = await Self.drain(socket)
        #expect(server.received == [.text(#"{"text":"hi"}"#)])
        #expect(try messages.map { try $0.decode(Line.self) } == [Line(text: "hi")])
    }

    @Test func textAndBinarySendsKeepTheirKind() async throws {
        let server = MockWebSocket()
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        try await socket.send("text")
        try await socket.send(Data([9]))
        try await socket.ping()
        #expect(server.received == [.text("text"), .binary(Data([9]))])
    }

    @Test func aStringOrDataIsSentAsItIsAndAsJSONOnlyWhenTheLabelAsks() async throws {
        let server = MockWebSocket()
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        try await socket.send("hi")
        try await Self.forward("hi", to: socket)
        try await socket.send(Data([1]))
        try await Self.forward(Data([1]), to: socket)
        #expect(server.received == [.text("hi"), .text(#""hi""#), .binary(Data([1])), .text(#""AQ==""#)])
    }

    /// Generic code that sends any `Encodable` value: it reaches only the JSON overload, by its label.
    private static func forward<Value: Encodable>(_ value: Value, to socket: WebSocket) async throws {
        try await socket.send(json: value)
    }

    @Test func aMessageThatIsNotTheExpectedJSONSaysWhichMessage() throws {
        let message = WebSocketMessage.text(#"{"txt":1}"#)
        #expect {
            try message.decode(Line.self)
        } throws: { error in
            guard case .messageDecoding(_, let failed) = error.fetchKind else {
                return false
            }
            return failed == message && "\(error)".contains(#"{"txt":1}"#)
        }
    }

    @Test func aServerCloseWithAnErrorCodeThrowsIt() async throws {
        let server = MockWebSocket([.message(.text("a")), .close(code: .internalServerError, reason: "crashed")])
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        let (messages, error) = await Self.drain(socket)
        #expect(messages == [.text("a")])
        guard case .webSocketClosed(1011, let reason, let request) = error?.fetchKind else {
            Issue.record("expected webSocketClosed 1011, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("crashed"))
        #expect(request?.url == Room().url)
        #expect(socket.closeCode == .internalServerError)
    }

    @Test func aDropWithoutAPolicyThrows1006() async throws {
        let server = MockWebSocket([.message(.text("a")), .drop])
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        let (_, error) = await Self.drain(socket)
        guard case .webSocketClosed(1006, _, _) = error?.fetchKind else {
            Issue.record("expected webSocketClosed 1006, got \(String(describing: error))")
            return
        }
        // Sending after the end says why nothing was sent.
        await #expect(throws: FetchError.self) { try await socket.send("late") }
        #expect(server.received.isEmpty)
    }

    @Test func aDropWithAPolicyReconnectsAfterTheBackoffAndTheSequenceGoesOn() async throws {
        let server = MockWebSocket([
            .message(.text("one")), .drop, .message(.text("two")), .close(code: .normalClosure, reason: ""),
        ])
        let scheduler = TestScheduler()
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(
            Room(), reconnectPolicy: ReconnectPolicy(backoff: Backoff(initialDelay: 2, maximumDelay: 30, jitter: 0)),
            scheduler: scheduler)
        let (messages, error) = await Self.drain(socket)
        #expect(error == nil)
        #expect(messages == [.text("one"), .text("two")])
        #expect(server.connections == 2)
        #expect(scheduler.delays == [2])
    }

    @Test func aServerThatGoesAwayIsReconnectedToOnlyWithAPolicy() async throws {
        let script: [MockWebSocket.Event] = [.close(code: .goingAway, reason: "restart"), .message(.text("back"))]
        let without = MockWebSocket(script)
        let ended = try await MockPerformer { _ in .webSocket(without) }.webSocket(Room())
        let (none, error) = await Self.drain(ended)
        #expect(none.isEmpty && error == nil && ended.closeCode == .goingAway)

        let with = MockWebSocket(script + [.close(code: .normalClosure, reason: "")])
        let socket = try await MockPerformer { _ in .webSocket(with) }.webSocket(
            Room(), reconnectPolicy: ReconnectPolicy(), scheduler: TestScheduler())
        let (messages, _) = await Self.drain(socket)
        #expect(messages == [.text("back")])
        #expect(with.connections == 2)
    }

    @Test func reconnectingGivesUpAfterThePolicysAttempts() async throws {
        let server = MockWebSocket([.drop])
        let calls = Locked(0)
        let performer = MockPerformer { _ in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            guard call == 1 else {
                throw URLError(.cannotConnectToHost)
            }
            return .webSocket(server)
        }
        let socket = try await performer.webSocket(
            Room(), reconnectPolicy: ReconnectPolicy(maximumFailuresInARow: 3), scheduler: TestScheduler())
        let (_, error) = await Self.drain(socket)
        guard case .attemptsExhausted(3, _, let request) = error?.fetchKind else {
            Issue.record("expected attemptsExhausted after 3, got \(String(describing: error))")
            return
        }
        #expect(request?.url == Room().url)
        #expect(calls.withLock { $0 } == 4)
    }

    @Test func aServerThatClosesEveryConnectionAtOnceExhaustsThePolicysAttempts() async throws {
        // Every handshake succeeds and every connection closes with 1011 before any message: each reconnection is
        // a failed attempt, and the policy's five end the sequence instead of reconnecting forever.
        // (A normal close ends the script, so that a socket that went on reconnecting would end there, not hang.)
        let server = MockWebSocket(
            Array(repeating: .close(code: .internalServerError, reason: "crashed"), count: 20) + [
                .close(code: .normalClosure, reason: "")
            ])
        let scheduler = TestScheduler()
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(
            Room(), reconnectPolicy: ReconnectPolicy(), scheduler: scheduler)
        let (messages, error) = await Self.drain(socket)
        #expect(messages.isEmpty)
        guard case .attemptsExhausted(5, let lastError, let request) = error?.fetchKind else {
            Issue.record("expected attemptsExhausted after 5, got \(String(describing: error))")
            return
        }
        guard case .webSocketClosed(1011, _, _) = lastError.fetchKind else {
            Issue.record("expected the last error to be the close with 1011, got \(lastError)")
            return
        }
        #expect(request?.url == Room().url)
        #expect(server.connections == 6)  // the first connection and five reconnections
        let delays = scheduler.delays
        #expect(delays.count == 5)
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 <= $1 }, "\(delays)")
    }

    @Test func aConnectionThatDeliversAMessageResetsTheFailedAttempts() async throws {
        let closes = Array(
            repeating: MockWebSocket.Event.close(code: .internalServerError, reason: "crashed"), count: 3)
        let server = MockWebSocket(
            closes + [.message(.text("x"))] + closes + closes + [.close(code: .normalClosure, reason: "")])
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(
            Room(), reconnectPolicy: ReconnectPolicy(maximumFailuresInARow: 3), scheduler: TestScheduler())
        let (messages, error) = await Self.drain(socket)
        #expect(messages == [.text("x")])
        guard case .attemptsExhausted(3, _, _) = error?.fetchKind else {
            Issue.record("expected attemptsExhausted after 3, got \(String(describing: error))")
            return
        }
        // Three failed attempts after the first connection, then one that delivers "x" (and closes): the count
        // starts again, and three more fail.
        #expect(server.connections == 7)
    }

    @Test func aHandshakeAnsweredWithAStatusThrowsTheErrorParsersError() async throws {
        struct Refused: Error, Equatable {
            let reason: String
        }
        struct Parser: ErrorParsing {
            func parseError(from response: Response) -> (any Error)? {
                response.data.map { Refused(reason: String(decoding: $0, as: UTF8.self)) }
            }
        }
        let performer = MockPerformer { _ in .json(#"{"reason":"full"}"#, status: 403) }
        await #expect(throws: Refused(reason: #"{"reason":"full"}"#)) {
            try await performer.webSocket(Room(), errorParser: Parser())
        }
        await #expect {
            try await performer.webSocket(Room())
        } throws: { error in
            guard case .unacceptableStatus(let response) = error.fetchKind else {
                return false
            }
            return response.status == 403 && response.data == Data(#"{"reason":"full"}"#.utf8)
        }
    }

    @Test func aHandshakeAnsweredWith200IsNotASocket() async throws {
        let performer = MockPerformer { _ in .text("hello") }
        await #expect {
            try await performer.webSocket(Room())
        } throws: { error in
            guard case .unacceptableStatus(let response) = error.fetchKind else {
                return false
            }
            return response.status == 200
        }
    }

    @Test func theHandshakeCarriesTheUpgradeFieldsAndGoesThroughTheMiddlewares() async throws {
        let server = MockWebSocket()
        let seen = Locked<[HeaderFields]>([])
        let events = Locked<[String]>([])
        let tokens = BearerAuthenticator(token: "old") { "new" }
        let performer = MockPerformer { request in
            seen.withLock { $0.append(request.headers) }
            return request.headers["Authorization"] == "Bearer new" ? .webSocket(server) : MockResponse(status: 401)
        }
        let socket = try await performer.with(
            .observe { event in events.withLock { $0.append("\(event)") } }, .authenticate(with: tokens)
        ).webSocket(Room())
        #expect(socket.response.status == 101)
        let handshakes = seen.withLock { $0 }
        #expect(handshakes.map { $0["Authorization"] } == ["Bearer old", "Bearer new"])
        for fields in handshakes {
            #expect(fields["upgrade"] == "websocket")
            #expect(fields["connection"] == "Upgrade")
            #expect(fields["sec-websocket-version"] == "13")
        }
        #expect(events.withLock { $0 }.contains { $0.contains("101") })
    }

    @Test func closingSendsTheCodeAndEndsTheSequence() async throws {
        let server = MockWebSocket([.message(.text("a"))])
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("a"))
        socket.close(code: try #require(WebSocket.CloseCode(rawValue: 4000)), reason: "done")
        #expect(try await iterator.next() == nil)
        #expect(server.clientClose?.code.rawValue == 4000)
        #expect(server.clientClose?.reason == "done")
        // The server's answer to the close carries the code back.
        #expect(socket.closeCode?.rawValue == 4000)
        // So it does when the close comes before anyone waits for a message.
        let early = try await MockPerformer { _ in .webSocket(MockWebSocket()) }.webSocket(Room())
        early.close(code: try #require(WebSocket.CloseCode(rawValue: 4001)), reason: "early")
        for try await message in early {
            Issue.record("no message expected, got \(message)")
        }
        #expect(early.closeCode?.rawValue == 4001 && early.closeReason == "early")
    }

    /// A code RFC 6455 does not let an endpoint send cannot be made, so a close never goes out with a code changed
    /// on the way (it used to go as 1000); every code it allows can.
    @Test func aCloseCodeNoEndpointMaySendCannotBeMade() throws {
        for forbidden: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, .max] {
            #expect(WebSocket.CloseCode(rawValue: forbidden) == nil, "\(forbidden)")
        }
        for allowed: UInt16 in [1000, 1003, 1007, 1011, 1014, 3000, 4999] {
            #expect(WebSocket.CloseCode(rawValue: allowed)?.rawValue == allowed, "\(allowed)")
        }
        #expect(WebSocket.CloseCode.normalClosure.rawValue == 1000 && WebSocket.CloseCode.goingAway.rawValue == 1001)
        #expect(WebSocket.CloseCode.protocolError.rawValue == 1002)
        #expect(WebSocket.CloseCode.policyViolation.rawValue == 1008)
        #expect(WebSocket.CloseCode.internalServerError.rawValue == 1011)
    }

    @Test func cancellingTheIteratingTaskClosesWithGoingAway() async throws {
        let server = MockWebSocket()
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room())
        let reader = Task { await Self.drain(socket) }
        reader.cancel()
        let (_, error) = await reader.value
        #expect((error as? FetchError)?.code == .cancelled)
        #expect(server.clientClose?.code == .goingAway)
    }

    @Test func aMessageOverTheLimitCloses1009() async throws {
        let server = MockWebSocket([.message(.binary(Data(count: 11)))])
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(Room(), maximumMessageSize: 10)
        let (_, error) = await Self.drain(socket)
        guard case .webSocketClosed(1009, let reason, _) = error?.fetchKind else {
            Issue.record("expected 1009, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("11 bytes"))
    }

    @Test func onlyAGetToAWebSocketOrHTTPURLOpens() async throws {
        struct Post: Request {
            var url = URL(string: "ws://chat.test/")!
            var method: HTTPMethod { .post }
        }
        struct File: Request {
            var url = URL(string: "ftp://chat.test/")!
        }
        let performer = MockPerformer { _ in .webSocket(MockWebSocket()) }
        for request in [Post() as any Request, File()] {
            await #expect {
                try await performer.webSocket(request)
            } throws: { error in
                guard case .invalidRequest(let text) = error.fetchKind else {
                    return false
                }
                return text.contains("chat.test")
            }
        }
    }

    @Test func aPerformerWhoseTransportOpensNoWebSocketsSaysSo() async throws {
        struct Plain: Transport {
            func send(
                _ request: any Request, completion: @escaping @Sendable (Result<Response, any Error>) -> Void
            ) -> any CancellableCall {
                completion(.success(Response(status: 101, originalRequest: request)))
                return CompletedCall()
            }
        }
        await #expect {
            try await Pipeline(Plain()).webSocket(Room())
        } throws: { error in
            "\(error)".contains("does not open WebSockets")
        }
    }
}
