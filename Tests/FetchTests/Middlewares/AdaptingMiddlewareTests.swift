import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct AdaptingMiddlewareTests {
    let request = TestRequest("https://api.example.com/users/1", headers: ["Accept": "application/json"])

    func sent(_ spy: SpyPerformer) throws -> URLRequest {
        try #require(spy.requests.first).makeURLRequest()
    }

    @Test func adaptersRunInOrderBeforeTheRequestIsSent() throws {
        let spy = SpyPerformer()
        spy.with(
            .adapt { $0.headers["X-Order"] = "first" },
            .adapt { $0.headers["X-Order"] = ($0.headers["X-Order"] ?? "") + ",second" }
        ).perform(request) { (_: Result<Data, any Error>) in }
        #expect(try sent(spy).value(forHTTPHeaderField: "X-Order") == "first,second")
        #expect(try sent(spy).value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test func repeatedAndOrderedFieldsPassEveryAdapterApartAndInOrder() throws {
        let spy = SpyPerformer()
        let ordered = TestRequest("https://api.example.com/", headers: HeaderFields([("X-A", "1"), ("X-B", "2")]))
        spy.with(
            .adapt { $0.headers.append("X-A", "3") },
            .adapt { $0.headers.append("Cookie", "a=1") },
            .adapt { $0.headers.append("cookie", "b=2") }
        ).perform(ordered) { (_: Result<Data, any Error>) in }
        let adapted = try #require(spy.requests.first)
        let fields = adapted.headers.map { "\($0.name): \($0.value)" }
        #expect(fields == ["X-A: 1", "X-B: 2", "X-A: 3", "Cookie: a=1", "cookie: b=2"])
        // URLRequest holds one value per name: combined as RFC 9110 §5.3 and RFC 6265 §5.4 say.
        let urlRequest = try adapted.makeURLRequest()
        #expect(urlRequest.value(forHTTPHeaderField: "X-A") == "1, 3")
        #expect(urlRequest.value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
    }

    @Test func anAdaptedRequestKeepsWhatTheRequestBuiltBeyondItsFields() throws {
        struct Built: Request {
            var url: URL { URL(string: "https://api.example.com/upload")! }
            func makeURLRequest() throws -> URLRequest {
                var urlRequest = URLRequest(url: url)
                urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
                urlRequest.setValue("built", forHTTPHeaderField: "X-Built")
                return urlRequest
            }
        }
        var adapted = AdaptedRequest(Built())
        adapted.headers["X-Added"] = "yes"
        let urlRequest = try adapted.makeURLRequest()
        #expect(urlRequest.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(urlRequest.value(forHTTPHeaderField: "X-Built") == "built")
        #expect(urlRequest.value(forHTTPHeaderField: "X-Added") == "yes")
        #expect(adapted.original is Built)
        #expect(AdaptedRequest(adapted).original is Built)
    }

    @Test func aBodyAnAdapterSetsReplacesTheStreamedOneAndItsLength() throws {
        struct Streamed: Request {
            var url: URL { URL(string: "https://api.example.com/upload")! }
            var method: HTTPMethod { .post }
            func makeURLRequest() throws -> URLRequest {
                var urlRequest = URLRequest(url: url)
                urlRequest.httpMethod = "POST"
                urlRequest.httpBodyStream = InputStream(data: Data("streamed".utf8))
                urlRequest.setValue("8", forHTTPHeaderField: "Content-Length")
                return urlRequest
            }
        }
        var untouched = AdaptedRequest(Streamed())
        untouched.headers["X-A"] = "1"
        #expect(try untouched.makeURLRequest().httpBodyStream != nil)
        #expect(try untouched.makeURLRequest().value(forHTTPHeaderField: "Content-Length") == "8")
        var replaced = untouched
        replaced.body = Data("new".utf8)
        let urlRequest = try replaced.makeURLRequest()
        #expect(urlRequest.httpBody == Data("new".utf8))
        #expect(urlRequest.httpBodyStream == nil)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(AdaptedRequest(replaced).body == Data("new".utf8))
    }

    @Test func headerAdaptersLeaveTheRequestsOwnHeadersAlone() throws {
        let spy = SpyPerformer()
        spy.with(.header("Accept", "text/html"), .header("User-Agent", "Fetch-Tests/1.0"))
            .perform(request) { (_: Result<Data, any Error>) in }
        #expect(try sent(spy).value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(try sent(spy).value(forHTTPHeaderField: "User-Agent") == "Fetch-Tests/1.0")
    }

    @Test func defaultHeadersYieldToTheRequestsOwnInAnyCase() throws {
        let spy = SpyPerformer()
        spy.with(.header("ACCEPT", "text/html"), .header("x-client", "fetch"))
            .perform(TestRequest("https://api.example.com/", headers: ["accept": "application/json"])) {
                (_: Result<Data, any Error>) in
            }
        let sent = try sent(spy)
        #expect(sent.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(sent.value(forHTTPHeaderField: "X-Client") == "fetch")
        #expect(sent.allHTTPHeaderFields?.count == 2)
    }

    @Test func requestIDsAreUniquePerRequest() throws {
        let spy = SpyPerformer()
        let performer = spy.with(.requestID())
        for _ in 0..<3 {
            performer.perform(request) { (_: Result<Data, any Error>) in }
        }
        let ids = try spy.requests.map { try $0.makeURLRequest().value(forHTTPHeaderField: "X-Request-ID") }
        #expect(Set(ids.compactMap { $0 }).count == 3)
    }

    /// The id is a random (version 4, RFC 9562 variant) UUID spelled as `UUID().uuidString` spells one.
    @Test func aRequestIDIsAVersion4UUIDInFoundationsSpelling() throws {
        let spy = SpyPerformer()
        let performer = spy.with(.requestID())
        for _ in 0..<200 {
            performer.perform(request) { (_: Result<Data, any Error>) in }
        }
        for sent in spy.requests {
            let id = try #require(try sent.makeURLRequest().value(forHTTPHeaderField: "X-Request-ID"))
            let uuid = try #require(UUID(uuidString: id), "\(id) is not a UUID")
            #expect(uuid.uuidString == id, "spelled as Foundation spells it")
            #expect(uuid.uuid.6 >> 4 == 4, "version 4: \(id)")
            #expect(uuid.uuid.8 >> 6 == 0b10, "the RFC 9562 variant: \(id)")
        }
    }

    @Test func anAdapterErrorFailsTheCallAndNothingIsSent() {
        struct NoSession: Error {}
        let spy = SpyPerformer()
        let result = Captured<Result<Data, any Error>>()
        spy.with(.adapt { _ in throw NoSession() }).perform(request, completion: result.capture)
        #expect(throws: NoSession.self) { try result.value?.get() }
        #expect(spy.requests.isEmpty)
    }

    @Test func anAdaptedHeaderThatWouldInjectHeadersIsRejected() throws {
        let mock = MockPerformer { _ in MockResponse(status: 200) }
        let result = Captured<Result<Data, any Error>>()
        mock.with(.header("X-User", "ada\r\nX-Admin: true")).perform(request, completion: result.capture)
        guard case .invalidRequest = try fetchError(result.value).fetchKind else {
            Issue.record("expected .invalidRequest, got \(String(describing: result.value))")
            return
        }
    }

    @Test func aFieldAnAdapterAppendsThatWouldInjectHeadersIsRejected() throws {
        let mock = MockPerformer { _ in MockResponse(status: 200) }
        let result = Captured<Result<Data, any Error>>()
        mock.with(.adapt { $0.headers.append("X-User", "ada\r\nX-Admin: true") })
            .perform(request, completion: result.capture)
        guard case .failure(let error) = result.value else {
            Issue.record("expected a failure, got \(String(describing: result.value))")
            return
        }
        #expect(String(describing: error).contains("X-User"), "\(error)")
        #expect(String(describing: error).contains("line break"), "\(error)")
    }

    @Test func theResponseAnswersTheCallersOwnRequest() throws {
        let result = Captured<Result<Response, any Error>>()
        MockPerformer { _ in MockResponse(status: 204) }.with(.requestID()).perform(
            request, completion: result.capture)
        let response = try #require(try result.value?.get())
        #expect(response.originalRequest is TestRequest)
    }

    @Test func asyncAdaptersMayWait() async throws {
        actor TokenStore {
            func token() -> String { "from-actor" }
        }
        let store = TokenStore()
        let mock = MockPerformer { request in .text(request.headers["X-Token"] ?? "none") }
        let performer = mock.with(
            .adapt { request in
                request.headers["X-Token"] = await store.token()
            })
        let token: String = try await performer.perform(request)
        #expect(token == "from-actor")
    }

    @Test func cancellingWhileAnAsyncAdapterRunsSendsNothing() async throws {
        let spy = SpyPerformer()
        let gate = Captured<Bool>()
        let results = Captured<Result<Data, any Error>>()
        let call = spy.with(
            .adapt { _ in
                _ = try? await gate.first()
            }
        ).perform(request, completion: results.capture)
        call.cancel()
        gate.capture(true)
        guard case .cancelled = try fetchError(try await results.first()).fetchKind else {
            Issue.record("expected .cancelled")
            return
        }
        try await Task.sleep(for: .milliseconds(50))  // room for a wrong send to show up
        #expect(spy.requests.isEmpty)
    }
}

@Suite struct ObservingMiddlewareTests {
    @Test func reportsStartAndFinishWithStatusAndBytes() throws {
        let events = Captured<FetchEvent>()
        let result = Captured<Result<Data, any Error>>()
        MockPerformer { _ in .text("hello") }.with(.observe(events.capture))
            .perform(TestRequest("https://api.example.com/greeting"), completion: result.capture)
        #expect(try result.value?.get() == Data("hello".utf8))
        let names = events.values.map(\.name)
        guard names == [.started, .attemptStarted, .attemptFinished, .finished],
            let status = events.values[3].status, let bytes = events.values[3].bytes
        else {
            Issue.record("expected started, the attempt, then finished, got \(events.values)")
            return
        }
        #expect(status == 200)
        #expect(bytes == 5)
        #expect(events.values[2].attempt == 1)
        #expect(events.values[2].status == 200)
        #expect(events.values[3].description.hasPrefix("GET https://api.example.com/greeting → 200 OK, 5 bytes in "))
    }

    @Test func reportsFailuresWithTheError() {
        let events = Captured<FetchEvent>()
        MockPerformer { _ in throw URLError(.notConnectedToInternet) }.with(.observe(events.capture))
            .perform(TestRequest("https://api.example.com/x")) { (_: Result<Data, any Error>) in }
        guard let event = events.value, event.name == .failed, case .transport = event.error?.fetchKind else {
            Issue.record("expected .failed(.transport), got \(events.values)")
            return
        }
    }

    @Test func seesEveryAttemptOfARetriedCallThroughASession() async throws {
        let server = try TestServer.running()
        let events = Captured<FetchEvent>()
        let performer = makeSession().with(.observe(events.capture)).with(
            .retry(RetryPolicy(backoff: Backoff(initialDelay: 0.01, jitter: 0))))
        let _: Data = try await performer.perform(TestRequest(server.url("/flaky/\(UUID().uuidString)?fail=1")))
        let statuses = events.values.compactMap { event -> Int? in
            event.name == .finished ? event.status : nil
        }
        #expect(statuses == [503, 200])
    }
}
