import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streams go through the same middlewares as `perform`: what acts on the head acts before the first byte reaches
/// the caller, and what keeps or shares bodies passes a stream on. Over the doubles, with no network and no waiting.
@Suite struct StreamMiddlewareTests {
    let request = TestRequest(URL(string: "https://api.example.com/events")!)

    static func body(of stream: ResponseStream) async throws -> [String] {
        var chunks: [String] = []
        for try await chunk in stream {
            chunks.append(String(decoding: chunk, as: UTF8.self))
        }
        return chunks
    }

    static func connection(_ chunks: String..., headers: HeaderFields = [:]) -> MockStream.Connection {
        MockStream.Connection(headers: headers, steps: chunks.map { .chunk(Data($0.utf8)) })
    }

    @Test func aTokenRefreshedOnA401OpensTheStreamWithTheNewToken() async throws {
        let mock = MockStream(connections: [
            .status(401, body: #"{"reason":"expired"}"#), .events([ServerSentEvent(id: "1", data: "hello")]),
            .noContent,
        ])
        let tokens = BearerAuthenticator(token: "old") { "new" }
        var received: [String] = []
        for try await event in mock.with(.authenticate(with: tokens)).events(request, scheduler: TestScheduler()) {
            received.append(event.data)
        }
        #expect(received == ["hello"])
        let sent = try mock.requests.map { try $0.makeURLRequest().value(forHTTPHeaderField: "Authorization") }
        #expect(sent == ["Bearer old", "Bearer new", "Bearer new"])
    }

    @Test func aStatusRetriedBeforeTheFirstByteOpensTheStream() async throws {
        let mock = MockStream(connections: [.status(503), Self.connection("a", "b")])
        let scheduler = TestScheduler()
        let stream = try await mock.with(.retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: scheduler)).stream(
            request)
        #expect(try await Self.body(of: stream) == ["a", "b"])
        #expect(mock.requests.count == 2)
        #expect(scheduler.delays == [0.5])
    }

    @Test func aFailureAfterTheFirstByteReachesTheCallerAndIsNotRetried() async throws {
        let mock = MockStream(connections: [
            MockStream.Connection(steps: [.chunk(Data("a".utf8)), .fail(URLError(.networkConnectionLost))]),
            Self.connection("never"),
        ])
        let stream = try await mock.with(.retry(scheduler: TestScheduler())).stream(request)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == Data("a".utf8))
        let error = await #expect(throws: FetchError.self) { try await iterator.next() }
        guard case .transport(let urlError, _) = error.fetchKind else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(urlError.code == .networkConnectionLost)
        #expect(mock.requests.count == 1)
    }

    @Test func exhaustedRetriesQuoteTheLastErrorBodyThroughTheErrorParser() async throws {
        let mock = MockStream(connections: [
            .status(503, body: #"{"reason":"first"}"#), .status(503, body: #"{"reason":"second"}"#),
        ])
        let performer = mock.with(.retry(RetryPolicy(maximumAttempts: 2), scheduler: TestScheduler()))
        let error = await #expect(throws: FetchError.self) {
            _ = try await performer.stream(request, errorParser: ReasonParser())
        }
        guard case .attemptsExhausted(let attempts, let lastError, _) = error.fetchKind else {
            Issue.record("expected attemptsExhausted, got \(String(describing: error))")
            return
        }
        #expect(attempts == 2)
        #expect((lastError as? Reason)?.reason == "second")
    }

    @Test func anUnparsedErrorStatusQuotesAtMost64KiBOfItsBody() async throws {
        let mock = MockStream(connections: [
            MockStream.Connection(
                status: 500,
                steps: [.chunk(Data(repeating: 65, count: 50_000)), .chunk(Data(repeating: 66, count: 50_000))])
        ])
        let error = await #expect(throws: FetchError.self) { _ = try await mock.stream(request) }
        guard case .unacceptableStatus(let response) = error.fetchKind else {
            Issue.record("expected unacceptableStatus, got \(String(describing: error))")
            return
        }
        #expect(response.status == 500)
        #expect(response.data?.count == 64 * 1024)
        #expect(response.originalRequest.url == request.url)
    }

    @Test func aCacheAndDeduplicationPassStreamsOnUntouched() async throws {
        let cacheable: HeaderFields = ["Cache-Control": "max-age=600", "Content-Type": "text/plain"]
        let mock = MockStream(connections: [
            Self.connection("one", headers: cacheable), Self.connection("two", headers: cacheable),
        ])
        let cache = CachedPerformer(mock, ResponseCache())
        let performer = cache.with(.deduplicate())
        async let first = Self.body(of: try await performer.stream(request))
        async let second = Self.body(of: try await performer.stream(request))
        let bodies = try await [first, second].sorted { $0.joined() < $1.joined() }
        #expect(bodies == [["one"], ["two"]])
        #expect(mock.requests.count == 2)
        #expect(cache.storedBytes == 0)
    }

    @Test func adaptersAndObserversApplyToStreams() async throws {
        let mock = MockStream(connections: [Self.connection("a")])
        let events = Locked<[String]>([])
        let performer =
            mock
            .with(.header("X-Client", "fetch"))
            .with(.observe { event in events.withLock { $0.append("\(event)") } })
        let stream = try await performer.stream(request)
        #expect(try await Self.body(of: stream) == ["a"])
        #expect(try mock.requests.first?.makeURLRequest().value(forHTTPHeaderField: "X-Client") == "fetch")
        // started, the attempt's start and finish, finished, and the body's end.
        #expect(events.withLock { $0.count } == 5)
        #expect(stream.response.originalRequest.url == request.url)
    }

    @Test func aMockPerformerStreamsScriptedChunksOneByOneAndPerformGetsThemJoined() async throws {
        let mock = MockPerformer { _ in .chunks([Data("a".utf8), Data("b".utf8), Data("c".utf8)]) }
        #expect(try await Self.body(of: try await mock.stream(request)) == ["a", "b", "c"])
        let whole: String = try await mock.perform(request)
        #expect(whole == "abc")
    }

    @Test func aMockPerformerAnswersAnEventStreamThenReconnects() async throws {
        let sse: HeaderFields = ["Content-Type": "text/event-stream"]
        let calls = Locked(0)
        let mock = MockPerformer { _ in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            switch call {
            case 1:
                return .chunks(["id: 1\ndata: one\n\n", "id: 2\ndata: two\n\n"].map { Data($0.utf8) }, headers: sse)
            case 2: return .chunks([Data("retry: 250\n\n".utf8), Data("id: 3\ndata: three\n\n".utf8)], headers: sse)
            default: return MockResponse(status: 204)
            }
        }
        let spy = SpyPerformer(forwardingTo: mock)
        let scheduler = TestScheduler()
        var received: [String] = []
        for try await event in spy.events(request, scheduler: scheduler) {
            received.append(event.data)
        }
        #expect(received == ["one", "two", "three"])
        #expect(spy.requests.count == 3)
        let lastIDs = try spy.requests.map { try $0.makeURLRequest().value(forHTTPHeaderField: "Last-Event-ID") }
        #expect(lastIDs == [nil, "2", "3"])
        #expect(scheduler.delays.last == 0.25)
    }

    struct Reason: Error, Decodable {
        let reason: String
    }

    struct ReasonParser: ErrorParsing {
        func parseError(from response: Response) -> (any Error)? {
            response.data.flatMap { try? JSONDecoder().decode(Reason.self, from: $0) }
        }
    }
}

/// The same over a real `Session` and the loopback server: middlewares act on the head of a real stream.
@Suite struct SessionStreamMiddlewareTests {
    let server: TestServer
    let session = makeSession()

    init() throws {
        server = try TestServer.running()
    }

    struct Token: Decodable, Parsable {
        let token: String
    }

    @Test func aTokenRefreshBeforeTheFirstByteOpensTheStream() async throws {
        let realm = UUID().uuidString
        let session = session
        let tokenURL = server.url("/auth/\(realm)/token")
        let tokens = BearerAuthenticator(token: "expired") {
            let answer: Token = try await session.perform(TestRequest(tokenURL, method: .post))
            return answer.token
        }
        let stream = try await session.with(.authenticate(with: tokens)).stream(
            TestRequest(server.url("/auth/\(realm)/protected")))
        var body = Data()
        for try await chunk in stream {
            body.append(chunk)
        }
        #expect(String(decoding: body, as: UTF8.self).contains(#""token": "token-1""#))
        #expect(try await server.hits("/auth/\(realm)/token") == 1)
        #expect(try await server.hits("/auth/\(realm)/protected") == 2)
    }

    @Test func aStatusRetriedBeforeTheFirstByteOpensTheStream() async throws {
        let path = "/flaky/\(UUID().uuidString)"
        let performer = session.with(.retry(RetryPolicy(backoff: Backoff(initialDelay: 0.01, jitter: 0))))
        let stream = try await performer.stream(TestRequest(server.url("\(path)?fail=2")))
        var body = Data()
        for try await chunk in stream {
            body.append(chunk)
        }
        #expect(String(decoding: body, as: UTF8.self).contains(#""attempt": 3"#))
        #expect(try await server.hits(path) == 3)
    }

    @Test func aCacheInFrontOfASessionSendsEveryStream() async throws {
        let path = "/flaky/\(UUID().uuidString)"
        let performer = CachedPerformer(session, ResponseCache()).with(.deduplicate())
        for _ in 0..<2 {
            let stream = try await performer.stream(TestRequest(server.url("\(path)?fail=0")))
            for try await _ in stream {}
        }
        #expect(try await server.hits(path) == 2)
    }
}
