import Fetch
import FetchTesting
import Foundation
import Testing

/// The body of the test server's `/slow/…` and `/cacheable/…` routes: how many requests the path has had.
struct Hit: Decodable, Parsable, Equatable {
    let hit: Int
}

@Suite struct DeduplicatingMiddlewareTests {
    @Test func hundredConcurrentIdenticalGETsReachTheServerOnce() async throws {
        let server = try TestServer.running()
        let path = "/slow/\(UUID().uuidString)"
        let deduplication: DeduplicatingMiddleware = .deduplicate()
        let performer = makeSession().with(deduplication)
        let request = TestRequest(server.url(path + "?ms=500"), headers: ["Accept": "application/json"])

        let hits = try await withThrowingTaskGroup(of: Hit.self) { group in
            for _ in 0..<100 {
                group.addTask { try await performer.perform(request) }
            }
            return try await group.reduce(into: [Hit]()) { $0.append($1) }
        }

        #expect(hits.count == 100)
        #expect(hits.allSatisfy { $0.hit == 1 })
        #expect(try await server.hits(path) == 1)
        #expect(deduplication.requestsInFlight == 0)
    }

    @Test func cancellingOneCallerLeavesTheOthers() async throws {
        let server = try TestServer.running()
        let path = "/slow/\(UUID().uuidString)"
        let deduplication: DeduplicatingMiddleware = .deduplicate()
        let performer = makeSession().with(deduplication)
        let request = TestRequest(server.url(path + "?ms=300"))
        let kept = Captured<Result<Hit, any Error>>()
        let cancelled = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: kept.capture)
        let call = performer.perform(request, completion: cancelled.capture)
        performer.perform(request, completion: kept.capture)
        call.cancel()
        call.cancel()

        let results = try await kept.wait(for: 2)
        #expect(try results.map { try $0.get() } == [Hit(hit: 1), Hit(hit: 1)])
        let cancellation = try await cancelled.first()
        guard case .cancelled = try fetchError(cancellation).fetchKind else {
            Issue.record("expected FetchError.cancelled, got \(cancellation)")
            return
        }
        #expect(cancelled.values.count == 1)
        #expect(try await server.hits(path) == 1)
    }

    @Test func cancellingEveryCallerCancelsTheSharedRequest() async throws {
        let spy = SpyPerformer()
        let deduplication: DeduplicatingMiddleware = .deduplicate()
        let performer = spy.with(deduplication)
        let request = TestRequest("http://example.test/shared")
        let results = Captured<Result<Data, any Error>>()

        let first = performer.perform(request, completion: results.capture)
        let second = performer.perform(request, completion: results.capture)
        let shared = try #require(spy.calls.first)
        #expect(spy.calls.count == 1)
        first.cancel()
        #expect(!shared.isCancelled)
        second.cancel()

        #expect(shared.isCancelled)
        let delivered = try await results.wait(for: 2)
        for result in delivered {
            guard case .cancelled = try fetchError(result).fetchKind else {
                Issue.record("expected FetchError.cancelled, got \(result)")
                continue
            }
        }
        #expect(deduplication.requestsInFlight == 0)
    }

    @Test func eachCallerParsesTheSharedResponseAsItsOwnType() async throws {
        let spy = SpyPerformer()
        let deduplication: DeduplicatingMiddleware = .deduplicate()
        let performer = spy.with(deduplication)
        let request = TestRequest("http://example.test/users/1")
        let hit = Captured<Result<Hit, any Error>>()
        let text = Captured<Result<String, any Error>>()
        let failing = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: hit.capture)
        performer.perform(request, completion: text.capture)
        performer.perform(request, errorParser: DecodableErrorParser<APIError>(), completion: failing.capture)
        #expect(spy.calls.count == 1)
        spy.complete(with: MockResponse(status: 200, data: Data(#"{"hit": 3}"#.utf8)))

        #expect(try await hit.first().get() == Hit(hit: 3))
        #expect(try await text.first().get() == #"{"hit": 3}"#)
        #expect(try await failing.first().get() == Hit(hit: 3))
    }

    @Test func errorStatusesReachEveryCallersOwnErrorParser() async throws {
        let spy = SpyPerformer()
        let deduplication: DeduplicatingMiddleware = .deduplicate()
        let performer = spy.with(deduplication)
        let request = TestRequest("http://example.test/users/9")
        let parsed = Captured<Result<Hit, any Error>>()
        let plain = Captured<Result<Hit, any Error>>()

        performer.perform(request, errorParser: DecodableErrorParser<APIError>(), completion: parsed.capture)
        performer.perform(request, completion: plain.capture)
        spy.complete(with: MockResponse(status: 404, data: Data(#"{"error": true, "reason": "no such user"}"#.utf8)))

        let parsedResult = try await parsed.first()
        #expect(throws: APIError(error: true, reason: "no such user")) { try parsedResult.get() }
        guard case .unacceptableStatus(let response) = try fetchError(try await plain.first()).fetchKind else {
            Issue.record("expected FetchError.unacceptableStatus")
            return
        }
        #expect(response.status == 404)
        #expect(response.originalRequest.url == request.url)
    }

    @Test func onlyIdenticalSafeRequestsAreShared() throws {
        let spy = SpyPerformer()
        let deduplication: DeduplicatingMiddleware = .deduplicate()
        let performer = spy.with(deduplication)
        let url = "http://example.test/items"
        let ignore: @Sendable (Result<Data, any Error>) -> Void = { _ in }

        performer.perform(TestRequest(url), completion: ignore)
        performer.perform(TestRequest(url), completion: ignore)
        performer.perform(TestRequest(url, headers: ["Accept-Language": "fr"]), completion: ignore)
        performer.perform(TestRequest(url, method: .head), completion: ignore)
        performer.perform(TestRequest(url + "?page=2"), completion: ignore)
        performer.perform(TestRequest(url, method: .post), completion: ignore)
        performer.perform(TestRequest(url, method: .post), completion: ignore)

        #expect(spy.calls.count == 6)
        #expect(spy.calls.filter { $0.request.method == .post }.count == 2)
    }

    @Test func aRequestAfterTheSharedOneFinishedIsSentAgain() throws {
        let mock = SpyPerformer(
            forwardingTo: MockPerformer { _ in MockResponse(status: 200, data: Data(#"{"hit": 1}"#.utf8)) })
        let deduplication: DeduplicatingMiddleware = .deduplicate()
        let performer = mock.with(deduplication)
        let request = TestRequest("http://example.test/again")
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        performer.perform(request, completion: results.capture)

        #expect(mock.calls.count == 2)
        #expect(try results.value?.get() == Hit(hit: 1))
        #expect(deduplication.requestsInFlight == 0)
    }
}
