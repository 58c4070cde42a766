import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events a cache reports: one outcome per call (hit, miss, stale served, revalidated, bypassed), then stored or
/// bypassed for what the network answered.
@Suite struct CachingMiddlewareEventTests {
    let request = TestRequest("https://api.example.com/users/1")
    let clock = TestClock()

    /// A middleware inside the cache that gives each response the metrics a transport would have measured.
    struct MeasuringMiddleware: Middleware {
        static let measured = AttemptMetrics(start: Date(timeIntervalSince1970: 1_000), duration: 0.25)

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            next(request) { answer in
                completion(
                    answer.map { response in
                        var measured = response
                        measured.metrics = Self.measured
                        return measured
                    })
            }
        }
    }

    /// A performer that answers each request with the next of `answers`, behind an observer, `cache` and the
    /// measuring middleware; the events the observer saw go to `events`.
    func performer(
        _ answers: [Result<MockResponse, any Error>],
        cache: ResponseCache? = nil,
        events: Captured<FetchEvent>
    ) -> Pipeline {
        let remaining = Locked(answers)
        let mock = MockPerformer { _ in
            let next = remaining.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next else {
                throw TestServerError("no answer left")
            }
            return try next.get()
        }
        let cache = cache ?? ResponseCache { [clock] in clock.now }
        return mock.with(.observe(events.capture), .cache(cache), MeasuringMiddleware())
    }

    /// Performs `request` through `performer` and returns its response and the names of the events it reported.
    func call(
        _ performer: Pipeline, _ request: any Request, events: Captured<FetchEvent>
    ) throws -> (response: Response, names: [String], events: [FetchEvent]) {
        let before = events.values.count
        let result = Captured<Result<Response, any Error>>()
        performer.perform(request, completion: result.capture)
        let response = try #require(result.value).get()
        let reported = Array(events.values.dropFirst(before))
        return (response, reported.map(\.name.description), reported)
    }

    static func fresh(_ body: String, _ headers: HeaderFields = ["Cache-Control": "max-age=60"]) -> MockResponse {
        MockResponse(status: 200, headers: headers, data: Data(body.utf8))
    }

    @Test func aMissIsStoredThenAFreshHitComesWithoutMetrics() throws {
        let events = Captured<FetchEvent>()
        let api = performer([.success(Self.fresh("first"))], events: events)

        let miss = try call(api, request, events: events)
        let hit = try call(api, request, events: events)

        #expect(
            miss.names == ["started", "cacheMiss", "attemptStarted", "attemptFinished", "cacheStored", "finished"])
        #expect(miss.response.metrics == MeasuringMiddleware.measured)
        #expect(miss.events.first { $0.name == .cacheStored }?.bytes == 5)
        #expect(hit.names == ["started", "cacheHit", "finished"])
        let reported = try #require(hit.events.first { $0.name == .cacheHit })
        #expect(reported.status == 200 && reported.bytes == 5)
        #expect(hit.response.metrics == nil)
        #expect(String(decoding: hit.response.data ?? Data(), as: UTF8.self) == "first")
    }

    @Test func aStaleResponseConfirmedBy304IsRevalidatedWithThe304sMetrics() throws {
        let events = Captured<FetchEvent>()
        let api = performer(
            [
                .success(Self.fresh("kept", ["Cache-Control": "max-age=10", "ETag": "\"v1\""])),
                .success(MockResponse(status: 304, headers: ["ETag": "\"v1\""])),
            ], events: events)

        _ = try call(api, request, events: events)
        clock.advance(by: 20)
        let revalidated = try call(api, request, events: events)

        #expect(revalidated.names == ["started", "attemptStarted", "attemptFinished", "cacheRevalidated", "finished"])
        #expect(revalidated.response.status == 200)
        #expect(String(decoding: revalidated.response.data ?? Data(), as: UTF8.self) == "kept")
        #expect(revalidated.response.metrics == MeasuringMiddleware.measured)
    }

    @Test func aStaleResponseTheServerReplacesIsAMissThenStored() throws {
        let events = Captured<FetchEvent>()
        let api = performer(
            [
                .success(Self.fresh("old", ["Cache-Control": "max-age=10", "ETag": "\"v1\""])),
                .success(Self.fresh("new", ["Cache-Control": "max-age=10", "ETag": "\"v2\""])),
            ], events: events)

        _ = try call(api, request, events: events)
        clock.advance(by: 20)
        let replaced = try call(api, request, events: events)

        #expect(
            replaced.names == ["started", "attemptStarted", "attemptFinished", "cacheMiss", "cacheStored", "finished"])
        let miss = try #require(replaced.events.first { $0.name == .cacheMiss })
        #expect(miss.reason == "the server did not confirm the stored response")
    }

    @Test func staleWhileRevalidateServesTheStoredResponseThenRevalidatesAfterTheCall() throws {
        let events = Captured<FetchEvent>()
        let api = performer(
            [
                .success(
                    Self.fresh("kept", ["Cache-Control": "max-age=10, stale-while-revalidate=60", "ETag": "\"v1\""])),
                .success(MockResponse(status: 304, headers: ["ETag": "\"v1\""])),
            ], events: events)

        _ = try call(api, request, events: events)
        clock.advance(by: 20)
        let stale = try call(api, request, events: events)

        // The mock answers the background revalidation at once, after the call has finished.
        #expect(
            stale.names == [
                "started", "cacheStaleServed", "finished", "attemptStarted", "attemptFinished", "cacheRevalidated",
            ])
        #expect(stale.events.first { $0.name == .cacheStaleServed }?.reason == "stale-while-revalidate")
        #expect(stale.response.metrics == nil)
        #expect(stale.response.isStale)
    }

    @Test func staleIfErrorServesTheStoredResponseForA503() throws {
        let events = Captured<FetchEvent>()
        let api = performer(
            [
                .success(Self.fresh("kept", ["Cache-Control": "max-age=10, stale-if-error=60", "ETag": "\"v1\""])),
                .success(MockResponse(status: 503)),
            ], events: events)

        _ = try call(api, request, events: events)
        clock.advance(by: 20)
        let stale = try call(api, request, events: events)

        #expect(stale.names == ["started", "attemptStarted", "attemptFinished", "cacheStaleServed", "finished"])
        let reason = try #require(stale.events.first { $0.name == .cacheStaleServed }?.reason)
        #expect(reason == "stale-if-error: the server answered 503 Service Unavailable")
        #expect(stale.response.status == 200 && stale.response.metrics == nil)
    }

    @Test func theOfflinePolicyServesTheStoredResponseWhenTheNetworkFails() throws {
        let events = Captured<FetchEvent>()
        let cache = ResponseCache(offlinePolicy: .serveStoredOnFailure) { [clock] in clock.now }
        let api = performer(
            [
                .success(Self.fresh("kept", ["Cache-Control": "max-age=10", "ETag": "\"v1\""])),
                .failure(URLError(.notConnectedToInternet)),
            ], cache: cache, events: events)

        _ = try call(api, request, events: events)
        clock.advance(by: 20)
        let stale = try call(api, request, events: events)

        #expect(stale.names == ["started", "attemptStarted", "attemptFinished", "cacheStaleServed", "finished"])
        #expect(
            stale.events.first { $0.name == .cacheStaleServed }?.reason == "offline policy: the network failed")
    }

    @Test func aFailedRevalidationThatNoRuleCoversIsAMiss() throws {
        let events = Captured<FetchEvent>()
        let api = performer(
            [
                .success(Self.fresh("kept", ["Cache-Control": "max-age=10", "ETag": "\"v1\""])),
                .failure(URLError(.notConnectedToInternet)),
            ], events: events)

        _ = try call(api, request, events: events)
        clock.advance(by: 20)
        let result = Captured<Result<Response, any Error>>()
        api.perform(request, completion: result.capture)

        #expect(throws: (any Error).self) { try result.value?.get() }
        #expect(
            events.values.suffix(4).map(\.name.description) == [
                "attemptStarted", "attemptFinished", "cacheMiss", "failed",
            ])
    }

    @Test(
        arguments: [
            (HTTPMethod.post, [:], "method POST is not cached"),
            (HTTPMethod.get, ["Cache-Control": "no-store"], "the request's Cache-Control: no-store"),
        ] as [(HTTPMethod, HeaderFields, String)])
    func aCallTheCacheDoesNotLookUpIsBypassedWithItsReason(method: HTTPMethod, headers: HeaderFields, reason: String)
        throws
    {
        let events = Captured<FetchEvent>()
        let api = performer([.success(Self.fresh("body"))], events: events)

        let passed = try call(
            api, TestRequest(request.url.absoluteString, method: method, headers: headers), events: events)

        #expect(passed.names == ["started", "cacheBypassed", "attemptStarted", "attemptFinished", "finished"])
        #expect(passed.events.first { $0.name == .cacheBypassed }?.reason == reason)
    }

    @Test func aStreamedCallIsBypassed() async throws {
        let events = Captured<FetchEvent>()
        let api = MockPerformer { _ in Self.fresh("streamed") }.with(.observe(events.capture), .cache(ResponseCache()))

        let stream = try await api.stream(request)
        _ = await stream.collect(upTo: 1 << 20)

        #expect(
            events.values.map(\.name.description) == [
                "started", "cacheBypassed", "attemptStarted", "attemptFinished", "finished", "streamEnded",
            ])
        #expect(events.values[1].reason == "a streamed call: its body goes to the caller")
    }

    @Test(
        arguments: [
            (["Cache-Control": "no-store"], true, "the response's Cache-Control: no-store"),
            (
                ["Cache-Control": "private, max-age=60"], false,
                "a shared cache does not store a response marked private"
            ),
            (["Cache-Control": "max-age=60", "Set-Cookie": "a=b"], true, "the response sets a cookie"),
            ([:], true, "the response has neither a freshness lifetime nor a validator"),
        ] as [(HeaderFields, Bool, String)])
    func aResponseTheCacheMayNotKeepIsAMissThenBypassedWithWhy(
        headers: HeaderFields, storesPrivateResponses: Bool, reason: String
    ) throws {
        let events = Captured<FetchEvent>()
        let cache = ResponseCache(storesPrivateResponses: storesPrivateResponses) { [clock] in clock.now }
        let api = performer([.success(Self.fresh("body", headers))], cache: cache, events: events)

        let passed = try call(api, request, events: events)

        #expect(
            passed.names == ["started", "cacheMiss", "attemptStarted", "attemptFinished", "cacheBypassed", "finished"])
        #expect(passed.events.first { $0.name == .cacheBypassed }?.reason == reason)
        #expect(cache.storedResponseCount == 0)
    }

    @Test func aResponseLargerThanTheCacheIsBypassed() throws {
        let events = Captured<FetchEvent>()
        let cache = ResponseCache(maximumBytes: 64) { [clock] in clock.now }
        let api = performer([.success(Self.fresh(String(repeating: "x", count: 1_000)))], cache: cache, events: events)

        let passed = try call(api, request, events: events)

        #expect(
            passed.names == ["started", "cacheMiss", "attemptStarted", "attemptFinished", "cacheBypassed", "finished"])
        #expect(
            passed.events.first { $0.name == .cacheBypassed }?.reason
                == "the response is larger than the cache's limit, or could not be written")
    }

    @Test func anObserverInsideTheCacheHearsOnlyWhatFollowsTheCallReachingIt() throws {
        let outside = Captured<FetchEvent>()
        let inside = Captured<FetchEvent>()
        let mock = MockPerformer { _ in Self.fresh("body") }
        let api = mock.with(.observe(outside.capture), .cache(ResponseCache()), .observe(inside.capture))

        for _ in 0..<2 {
            api.perform(request) { (_: Result<Data, any Error>) in }
        }

        #expect(
            outside.values.map(\.name.description) == [
                "started", "cacheMiss", "attemptStarted", "attemptFinished", "cacheStored", "finished",
                "started", "cacheHit", "finished",
            ])
        // A hit never reaches it; a miss does, and the call's events from then on are its own too.
        #expect(
            inside.values.map(\.name.description) == [
                "started", "attemptStarted", "attemptFinished", "finished", "cacheStored",
            ])
    }

    @Test func overTheLoopbackServerAMissAHitAndA304AreEachReportedOnce() async throws {
        let server = try TestServer.running()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let events = Captured<FetchEvent>()
        // The cache ages its response by a clock that stands still: under a loaded sanitized run more than
        // `max-age=60` can pass between two calls, and then the second is a revalidation, not the hit this test is about.
        let clock = TestClock()
        let cache = ResponseCache { clock.now }
        let api = makeSession(configuration: configuration).with(.observe(events.capture), .cache(cache))
        let url = server.url("/cacheable/\(UUID().uuidString)?cc=max-age=60&etag=v1").absoluteString

        let _: Data = try await api.perform(TestRequest(url))
        let _: Data = try await api.perform(TestRequest(url))
        let revalidated: Response = try await api.perform(TestRequest(url, headers: ["Cache-Control": "no-cache"]))

        #expect(
            events.values.map(\.name.description) == [
                "started", "cacheMiss", "attemptStarted", "attemptFinished", "cacheStored", "finished",
                "started", "cacheHit", "finished",
                "started", "attemptStarted", "attemptFinished", "cacheRevalidated", "finished",
            ])
        #expect(events.values.first { $0.name == .attemptFinished }?.status == 200)
        #expect(events.values.last { $0.name == .attemptFinished }?.status == 304)
        #expect(revalidated.status == 200)
    }
}
