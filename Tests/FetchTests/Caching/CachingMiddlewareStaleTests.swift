import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stale responses through ``CachedPerformer`` (RFC 5861 and the offline policy), synchronously over a pending
/// ``SpyPerformer`` and a virtual clock: the test decides when and how the network answers.
@Suite struct CachingMiddlewareStaleTests {
    let clock = TestClock()
    let spy = SpyPerformer()
    let request = TestRequest("http://example.test/items/\(UUID().uuidString)")

    func makePerformer(offlinePolicy: ResponseCache.OfflinePolicy = .never) -> CachedPerformer {
        CachedPerformer(spy, ResponseCache(offlinePolicy: offlinePolicy) { [clock] in clock.now })
    }

    static func body(_ hit: Int) -> Data {
        Data(#"{"hit": \#(hit)}"#.utf8)
    }

    /// Stores `{"hit": 1}` with `cacheControl` and the ETag "v1", through the first (pending) call.
    func store(_ cacheControl: String, in performer: CachedPerformer) throws {
        let first = Captured<Result<Hit, any Error>>()
        performer.perform(request, completion: first.capture)
        spy.complete(
            with: MockResponse(headers: ["Cache-Control": cacheControl, "ETag": #""v1""#], data: Self.body(1)))
        #expect(try first.value?.get() == Hit(hit: 1))
        #expect(performer.storedResponseCount == 1)
    }

    func ifNoneMatch(of call: SpyPerformer.Call) throws -> String? {
        try call.request.makeURLRequest().value(forHTTPHeaderField: "If-None-Match")
    }

    // MARK: - stale-while-revalidate

    @Test func withinStaleWhileRevalidateTheStoredResponseIsServedAtOnceAndRevalidatedOnce() throws {
        let performer = makePerformer()
        try store("max-age=60, stale-while-revalidate=30", in: performer)
        clock.advance(by: 70)

        let results = Captured<Result<Response, any Error>>()
        performer.perform(request, completion: results.capture)
        performer.perform(request, completion: results.capture)

        let served = try results.values.map { try $0.get() }
        #expect(served.count == 2, "both callers were answered before the network did")
        #expect(served.allSatisfy { $0.isStale && $0.headers["Age"] == "70" })
        #expect(try served.map { try Hit.parse(response: $0, errorParser: nil).get() } == [Hit(hit: 1), Hit(hit: 1)])
        #expect(spy.calls.count == 2, "one revalidation for both callers")
        let revalidation = try #require(spy.pendingCalls.first)
        #expect(try ifNoneMatch(of: revalidation) == #""v1""#)

        spy.complete(
            with: MockResponse(status: 304, headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30"]))
        let fresh = Captured<Result<Response, any Error>>()
        performer.perform(request, completion: fresh.capture)

        let afterRevalidation = try #require(try fresh.value?.get())
        #expect(!afterRevalidation.isStale)
        #expect(afterRevalidation.headers["Age"] == nil && afterRevalidation.headers["Warning"] == nil)
        #expect(spy.calls.count == 2, "the 304 made the stored response fresh again")
    }

    @Test func aBackgroundRevalidationAnswered200ReplacesTheStoredResponse() throws {
        let performer = makePerformer()
        try store("max-age=60, stale-while-revalidate=30", in: performer)
        clock.advance(by: 61)
        let stale = Captured<Result<Hit, any Error>>()
        performer.perform(request, completion: stale.capture)
        #expect(try stale.value?.get() == Hit(hit: 1))

        spy.complete(with: MockResponse(headers: ["Cache-Control": "max-age=60"], data: Self.body(2)))
        let next = Captured<Result<Hit, any Error>>()
        performer.perform(request, completion: next.capture)

        #expect(try next.value?.get() == Hit(hit: 2))
        #expect(spy.calls.count == 2)
    }

    @Test func aFailedBackgroundRevalidationKeepsTheStoredResponseAndTheNextCallerRevalidatesAgain() throws {
        let performer = makePerformer()
        try store("max-age=60, stale-while-revalidate=30", in: performer)
        clock.advance(by: 65)
        let results = Captured<Result<Hit, any Error>>()
        performer.perform(request, completion: results.capture)
        spy.fail(with: URLError(.notConnectedToInternet))

        performer.perform(request, completion: results.capture)

        #expect(try results.values.map { try $0.get() } == [Hit(hit: 1), Hit(hit: 1)])
        #expect(spy.calls.count == 3, "the failed revalidation ended, so the second caller started another")
        #expect(spy.pendingCalls.count == 1)
    }

    @Test func pastTheStaleWhileRevalidateWindowTheCallerWaitsForTheNetwork() throws {
        let performer = makePerformer()
        try store("max-age=60, stale-while-revalidate=30", in: performer)
        clock.advance(by: 91)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        #expect(results.values.isEmpty, "served nothing stale past the window")
        spy.complete(with: MockResponse(headers: ["Cache-Control": "max-age=60"], data: Self.body(2)))

        #expect(try results.value?.get() == Hit(hit: 2))
    }

    @Test(arguments: ["max-age=60, must-revalidate, stale-while-revalidate=30", "no-cache, stale-while-revalidate=90"])
    func mustRevalidateAndNoCacheResponsesAreNeverServedWhileRevalidating(cacheControl: String) throws {
        let performer = makePerformer()
        try store(cacheControl, in: performer)
        clock.advance(by: 61)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)

        #expect(results.values.isEmpty)
        #expect(spy.pendingCalls.count == 1)
    }

    @Test func aRequestAskingForNoCacheIsNotServedWhileRevalidating() throws {
        let performer = makePerformer()
        try store("max-age=60, stale-while-revalidate=30", in: performer)
        clock.advance(by: 70)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(TestRequest(request.url, headers: ["Cache-Control": "no-cache"]), completion: results.capture)

        #expect(results.values.isEmpty)
        #expect(spy.pendingCalls.count == 1)
    }

    // MARK: - stale-if-error

    @Test(arguments: [500, 502, 503, 504])
    func withinStaleIfErrorAServerErrorIsAnsweredFromTheStore(status: Int) throws {
        let performer = makePerformer()
        try store("max-age=60, stale-if-error=300", in: performer)
        clock.advance(by: 200)
        let results = Captured<Result<Response, any Error>>()

        performer.perform(request, completion: results.capture)
        #expect(try ifNoneMatch(of: try #require(spy.pendingCalls.first)) == #""v1""#)
        spy.complete(with: MockResponse(status: status, data: Data("down for maintenance".utf8)))

        let served = try #require(try results.value?.get())
        #expect(served.status == 200 && served.isStale)
        #expect(served.headers["Age"] == "200")
        #expect(try Hit.parse(response: served, errorParser: nil).get() == Hit(hit: 1))
    }

    @Test func withinStaleIfErrorATransportErrorIsAnsweredFromTheStore() throws {
        let performer = makePerformer()
        try store("max-age=60, stale-if-error=300", in: performer)
        clock.advance(by: 360)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        spy.fail(with: URLError(.cannotConnectToHost))

        #expect(try results.value?.get() == Hit(hit: 1))
        #expect(performer.storedResponseCount == 1)
    }

    @Test func pastTheStaleIfErrorWindowTheFailureIsDelivered() throws {
        let performer = makePerformer()
        try store("max-age=60, stale-if-error=300", in: performer)
        clock.advance(by: 361)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        spy.fail(with: URLError(.cannotConnectToHost))

        let error = try #require(
            results.value.flatMap { result -> (any Error)? in
                guard case .failure(let error) = result else { return nil }
                return error
            })
        guard case .transport(let urlError, _) = error.fetchKind else {
            Issue.record("expected the transport error, got \(error)")
            return
        }
        #expect(urlError.code == .cannotConnectToHost)
    }

    @Test(arguments: [404, 501])
    func statusesOtherThanTheFourServerErrorsAreDelivered(status: Int) throws {
        let performer = makePerformer(offlinePolicy: .serveStoredOnFailure)
        try store("max-age=60, stale-if-error=300", in: performer)
        clock.advance(by: 100)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        spy.complete(with: MockResponse(status: status))

        #expect(throws: FetchError.self) { try results.value?.get() }
    }

    @Test func aCancelledRevalidationIsNotAnsweredFromTheStore() throws {
        let performer = makePerformer(offlinePolicy: .serveStoredOnFailure)
        try store("max-age=60, stale-if-error=300", in: performer)
        clock.advance(by: 100)
        let results = Captured<Result<Hit, any Error>>()

        let call = performer.perform(request, completion: results.capture)
        call.cancel()

        guard case .cancelled = results.value.failureKind() else {
            Issue.record("expected FetchError.cancelled, got \(String(describing: results.value))")
            return
        }
    }

    // MARK: - Offline policy

    @Test func theOfflinePolicyServesAnyStoredResponseOnATransportError() throws {
        let performer = makePerformer(offlinePolicy: .serveStoredOnFailure)
        try store("max-age=60, must-revalidate", in: performer)
        clock.advance(by: 30 * 86400)
        let results = Captured<Result<Response, any Error>>()

        performer.perform(request, completion: results.capture)
        spy.fail(with: URLError(.notConnectedToInternet))

        let served = try #require(try results.value?.get())
        #expect(served.isStale)
        #expect(served.headers["Age"] == "\(30 * 86400)")
        #expect(served.headers["Warning"] == #"110 - "Response is Stale""#)
        #expect(try Hit.parse(response: served, errorParser: nil).get() == Hit(hit: 1))
    }

    @Test func withoutTheOfflinePolicyATransportErrorIsDelivered() throws {
        let performer = makePerformer()
        try store("max-age=60", in: performer)
        clock.advance(by: 61)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        spy.fail(with: URLError(.notConnectedToInternet))

        #expect(throws: FetchError.self) { try results.value?.get() }
    }

    @Test func theOfflinePolicyDoesNotHideAServerError() throws {
        let performer = makePerformer(offlinePolicy: .serveStoredOnFailure)
        try store("max-age=60", in: performer)
        clock.advance(by: 61)
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        spy.complete(with: MockResponse(status: 503))

        #expect(throws: FetchError.self) { try results.value?.get() }
    }

    @Test func theFluentFormTakesTheOfflinePolicy() throws {
        let mock = MockPerformer { _ in throw URLError(.timedOut) }
        let performer = CachedPerformer(mock, ResponseCache(offlinePolicy: .serveStoredOnFailure))
        #expect(performer.offlinePolicy == .serveStoredOnFailure)
        #expect(CachedPerformer(MockPerformer { _ in MockResponse() }, ResponseCache()).offlinePolicy == .never)
    }

    // MARK: - The stale marker

    @Test func responsesFromTheNetworkAndFreshHitsAreNotMarkedStale() throws {
        let performer = makePerformer()
        let results = Captured<Result<Response, any Error>>()
        performer.perform(request, completion: results.capture)
        spy.complete(with: MockResponse(headers: ["Cache-Control": "max-age=60"], data: Self.body(1)))
        clock.advance(by: 30)
        performer.perform(request, completion: results.capture)

        let responses = try results.values.map { try $0.get() }
        #expect(responses.count == 2)
        #expect(responses.allSatisfy { !$0.isStale && $0.headers["Warning"] == nil && $0.headers["Age"] == nil })
    }

    @Test func isStaleReadsWarning110FromAnyCache() {
        func response(_ warning: String) -> Response {
            Response(status: 200, headers: ["warning": warning], originalRequest: request)
        }
        #expect(response(#"110 proxy.example "Response is Stale""#).isStale)
        #expect(response(#"199 - "Miscellaneous", 110 - "Response is Stale""#).isStale)
        #expect(!response(#"199 - "Miscellaneous warning""#).isStale)
        #expect(!Response(status: 200, originalRequest: request).isStale)
    }
}
