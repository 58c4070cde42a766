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
            .adapt([
                RequestAdapter { $0.setValue("first", forHTTPHeaderField: "X-Order") },
                RequestAdapter {
                    $0.setValue(
                        ($0.value(forHTTPHeaderField: "X-Order") ?? "") + ",second", forHTTPHeaderField: "X-Order")
                },
            ])
        ).perform(request) { (_: Result<Data, any Error>) in }
        #expect(try sent(spy).value(forHTTPHeaderField: "X-Order") == "first,second")
        #expect(try sent(spy).value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test func headerAdaptersLeaveTheRequestsOwnHeadersAlone() throws {
        let spy = SpyPerformer()
        spy.with(.adapt([.header("Accept", "text/html"), .header("User-Agent", "Fetch-Tests/1.0")]))
            .perform(request) { (_: Result<Data, any Error>) in }
        #expect(try sent(spy).value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(try sent(spy).value(forHTTPHeaderField: "User-Agent") == "Fetch-Tests/1.0")
    }

    @Test func defaultHeadersYieldToTheRequestsOwnInAnyCase() throws {
        let spy = SpyPerformer()
        spy.with(.adapt([.header("ACCEPT", "text/html"), .header("x-client", "fetch")]))
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
        let performer = spy.with(.adapt([.requestID()]))
        for _ in 0..<3 {
            performer.perform(request) { (_: Result<Data, any Error>) in }
        }
        let ids = try spy.requests.map { try $0.makeURLRequest().value(forHTTPHeaderField: "X-Request-ID") }
        #expect(Set(ids.compactMap { $0 }).count == 3)
    }

    @Test func anAdapterErrorFailsTheCallAndNothingIsSent() {
        struct NoSession: Error {}
        let spy = SpyPerformer()
        let result = Captured<Result<Data, any Error>>()
        spy.with(.adapt([RequestAdapter { _ in throw NoSession() }])).perform(request, completion: result.capture)
        #expect(throws: NoSession.self) { try result.value?.get() }
        #expect(spy.requests.isEmpty)
    }

    @Test func anAdaptedHeaderThatWouldInjectHeadersIsRejected() throws {
        let mock = MockPerformer { _ in MockResponse(status: 200) }
        let result = Captured<Result<Data, any Error>>()
        mock.with(.adapt([.header("X-User", "ada\r\nX-Admin: true")])).perform(request, completion: result.capture)
        guard case .invalidRequest = try fetchError(result.value).fetchKind else {
            Issue.record("expected .invalidRequest, got \(String(describing: result.value))")
            return
        }
    }

    @Test func theResponseAnswersTheCallersOwnRequest() throws {
        let result = Captured<Result<Response, any Error>>()
        MockPerformer { _ in MockResponse(status: 204) }.with(.adapt([.requestID()])).perform(
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
            .adapt([
                RequestAdapter.async { request in
                    var request = request
                    request.setValue(await store.token(), forHTTPHeaderField: "X-Token")
                    return request
                }
            ]))
        let token: String = try await performer.perform(request)
        #expect(token == "from-actor")
    }

    @Test func cancellingWhileAnAsyncAdapterRunsSendsNothing() async throws {
        let spy = SpyPerformer()
        let gate = Captured<Bool>()
        let results = Captured<Result<Data, any Error>>()
        let call = spy.with(
            .adapt([
                RequestAdapter.async { request in
                    _ = try? await gate.first()
                    return request
                }
            ])
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
        guard events.values.count == 2, events.values[0].name == .started, events.values[1].name == .finished,
            let status = events.values[1].status, let bytes = events.values[1].bytes
        else {
            Issue.record("expected started then finished, got \(events.values)")
            return
        }
        #expect(status == 200)
        #expect(bytes == 5)
        #expect(events.values[1].description.hasPrefix("GET https://api.example.com/greeting → 200 OK, 5 bytes in "))
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
