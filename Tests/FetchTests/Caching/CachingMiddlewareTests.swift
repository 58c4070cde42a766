import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A clock that a test moves forward by hand.
final class TestClock: Sendable {
    private let current = Locked(Date())

    var now: Date {
        current.withLock { $0 }
    }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}

@Suite struct CachingMiddlewareTests {
    let server: TestServer
    let clock = TestClock()
    let session: Session

    init() throws {
        server = try TestServer.running()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        session = makeSession(configuration: configuration)
    }

    /// Moves the test clock and the clock of the `/cacheable` path forward together, as time passes for both.
    func advance(_ path: String, by seconds: TimeInterval) async throws {
        clock.advance(by: seconds)
        let id = path.split(separator: "/").last.map(String.init) ?? ""
        let request = TestRequest(server.url("/cacheable-clock/\(id)?advance=\(seconds)"), method: .post)
        let _: Data = try await Session().perform(request)
    }

    func makePerformer(storesPrivateResponses: Bool = true) -> CachedPerformer {
        CachedPerformer(session, ResponseCache(storesPrivateResponses: storesPrivateResponses) { [clock] in clock.now })
    }

    /// A unique path of the `/cacheable` route and the request for it with `query`.
    func cacheable(_ query: String, headers: HeaderFields? = nil) -> (path: String, request: TestRequest) {
        let path = "/cacheable/\(UUID().uuidString)"
        return (path, TestRequest(server.url(path + "?" + query), headers: headers))
    }

    @Test func freshResponseIsServedWithoutNetwork() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=max-age=60")

        let first: Hit = try await performer.perform(request)
        try await advance(path, by: 59)
        let second: Hit = try await performer.perform(request)

        #expect(first == Hit(hit: 1))
        #expect(second == Hit(hit: 1))
        #expect(try await server.hits(path) == 1)
    }

    @Test func freshHitIsDeliveredThroughTheCallbackForm() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=max-age=60")
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(request, completion: results.capture)
        _ = try await results.wait(for: 1)
        performer.perform(request, completion: results.capture)

        let values = try await results.wait(for: 2)
        #expect(try values.map { try $0.get() } == [Hit(hit: 1), Hit(hit: 1)])
        #expect(try await server.hits(path) == 1)
    }

    @Test func staleResponseWithoutValidatorsIsFetchedAgain() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=max-age=60")

        let first: Hit = try await performer.perform(request)
        try await advance(path, by: 61)
        let second: Hit = try await performer.perform(request)

        #expect(first == Hit(hit: 1))
        #expect(second == Hit(hit: 2))
        #expect(try await server.hits(path) == 2)
    }

    @Test func staleResponseIsRevalidatedWithItsETagAndServedFromTheStoredBody() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=max-age=60&etag=v1")

        let first: Hit = try await performer.perform(request)
        try await advance(path, by: 61)
        let revalidated: Response = try await performer.perform(request)
        let afterRevalidation: Hit = try await performer.perform(request)

        #expect(first == Hit(hit: 1))
        #expect(revalidated.status == 200)
        #expect(try Hit.parse(response: revalidated, errorParser: nil).get() == Hit(hit: 1))
        #expect(revalidated.headers["ETag"] == #""v1""#)
        #expect(afterRevalidation == Hit(hit: 1))
        #expect(try await server.hits(path) == 2, "the 304 refreshed the response, so the third use was fresh")
    }

    @Test func noCacheResponseIsRevalidatedWithLastModifiedOnEveryUse() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=no-cache&lm=100")

        var bodies: [Hit] = []
        for _ in 0..<3 {
            bodies.append(try await performer.perform(request))
        }

        #expect(bodies == [Hit(hit: 1), Hit(hit: 1), Hit(hit: 1)])
        #expect(try await server.hits(path) == 3)
        #expect(performer.storedResponseCount == 1)
    }

    @Test func noStoreResponseIsNeverStored() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=no-store,max-age=60&etag=v1")

        let first: Hit = try await performer.perform(request)
        let second: Hit = try await performer.perform(request)

        #expect([first, second] == [Hit(hit: 1), Hit(hit: 2)])
        #expect(try await server.hits(path) == 2)
        #expect(performer.storedResponseCount == 0)
    }

    @Test func expiresIsMeasuredFromTheResponsesDate() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("expires=60")

        let first: Hit = try await performer.perform(request)
        try await advance(path, by: 30)
        let fresh: Hit = try await performer.perform(request)
        try await advance(path, by: 35)
        let stale: Hit = try await performer.perform(request)

        #expect([first, fresh, stale] == [Hit(hit: 1), Hit(hit: 1), Hit(hit: 2)])
        #expect(try await server.hits(path) == 2)
    }

    @Test func ageOnArrivalShortensFreshness() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=max-age=60&age=50")

        let first: Hit = try await performer.perform(request)
        try await advance(path, by: 5)
        let fresh: Hit = try await performer.perform(request)
        try await advance(path, by: 6)
        let stale: Hit = try await performer.perform(request)

        #expect([first, fresh, stale] == [Hit(hit: 1), Hit(hit: 1), Hit(hit: 2)])
        #expect(try await server.hits(path) == 2)
    }

    @Test func privateResponsesAreStoredOnlyWhenConfigured() async throws {
        let shared = makePerformer(storesPrivateResponses: false)
        let (sharedPath, sharedRequest) = cacheable("cc=private,max-age=60")
        _ = try await shared.perform(sharedRequest) as Hit
        _ = try await shared.perform(sharedRequest) as Hit

        let privateCache = makePerformer()
        let (privatePath, privateRequest) = cacheable("cc=private,max-age=60")
        _ = try await privateCache.perform(privateRequest) as Hit
        _ = try await privateCache.perform(privateRequest) as Hit

        #expect(try await server.hits(sharedPath) == 2)
        #expect(try await server.hits(privatePath) == 1)
    }

    @Test func varyingHeadersMustMatchTheStoredRequest() async throws {
        let performer = makePerformer()
        let path = "/cacheable/\(UUID().uuidString)"
        let url = server.url(path + "?cc=max-age=60&vary=Accept-Language")
        let french = TestRequest(url, headers: ["Accept-Language": "fr"])
        let english = TestRequest(url, headers: ["Accept-Language": "en"])

        let first: Hit = try await performer.perform(french)
        let other: Hit = try await performer.perform(english)
        let again: Hit = try await performer.perform(english)

        #expect([first, other, again] == [Hit(hit: 1), Hit(hit: 2), Hit(hit: 2)])
        #expect(try await server.hits(path) == 2)
    }

    @Test func varyStarIsNotStored() async throws {
        let performer = makePerformer()
        let (path, request) = cacheable("cc=max-age=60&vary=*")

        _ = try await performer.perform(request) as Hit
        _ = try await performer.perform(request) as Hit

        #expect(try await server.hits(path) == 2)
        #expect(performer.storedResponseCount == 0)
    }

    @Test func requestNoCacheRevalidatesAndNoStoreBypasses() async throws {
        let performer = makePerformer()
        let (path, _) = cacheable("")
        let url = server.url(path + "?cc=max-age=60&etag=v1")

        _ = try await performer.perform(TestRequest(url)) as Hit
        let revalidated: Hit = try await performer.perform(TestRequest(url, headers: ["Cache-Control": "no-cache"]))
        let bypassed: Hit = try await performer.perform(TestRequest(url, headers: ["Cache-Control": "no-store"]))

        #expect(revalidated == Hit(hit: 1))
        #expect(bypassed == Hit(hit: 3))
        #expect(try await server.hits(path) == 3)
    }

    @Test func unsafeRequestRemovesTheStoredResponse() throws {
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { _ in
                MockResponse(headers: ["Cache-Control": "max-age=60"], data: Data("{}".utf8))
            })
        let performer = CachedPerformer(spy, ResponseCache())
        let url = "http://example.test/item"
        let ignore: @Sendable (Result<Data, any Error>) -> Void = { _ in }

        performer.perform(TestRequest(url), completion: ignore)
        performer.perform(TestRequest(url), completion: ignore)
        performer.perform(TestRequest(url, method: .delete), completion: ignore)
        performer.perform(TestRequest(url), completion: ignore)

        #expect(spy.calls.map(\.request.method) == [.get, .delete, .get])
    }

    @Test func leastRecentlyUsedResponsesAreEvictedPastTheByteLimit() throws {
        let body = Data(repeating: UInt8(ascii: "x"), count: 1000)
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { _ in MockResponse(headers: ["Cache-Control": "max-age=60"], data: body) })
        let performer = CachedPerformer(spy, ResponseCache(maximumBytes: 2600))
        let ignore: @Sendable (Result<Data, any Error>) -> Void = { _ in }
        let a = TestRequest("http://example.test/a")
        let b = TestRequest("http://example.test/b")
        let c = TestRequest("http://example.test/c")

        performer.perform(a, completion: ignore)
        performer.perform(b, completion: ignore)
        performer.perform(a, completion: ignore)  // a is now used more recently than b
        performer.perform(c, completion: ignore)  // over the limit: b goes
        #expect(spy.calls.count == 3)
        #expect(performer.storedResponseCount == 2)
        #expect(performer.storedBytes <= 2600)

        performer.perform(a, completion: ignore)
        performer.perform(c, completion: ignore)
        #expect(spy.calls.count == 3)
        performer.perform(b, completion: ignore)
        #expect(spy.calls.map(\.request.url.path) == ["/a", "/b", "/c", "/b"])
    }

    @Test func responsesLargerThanTheWholeLimitAreNotStored() throws {
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { _ in
                MockResponse(headers: ["Cache-Control": "max-age=60"], data: Data(count: 5000))
            })
        let performer = CachedPerformer(spy, ResponseCache(maximumBytes: 4096))
        let results = Captured<Result<Data, any Error>>()

        performer.perform(TestRequest("http://example.test/big"), completion: results.capture)
        performer.perform(TestRequest("http://example.test/big"), completion: results.capture)

        #expect(try results.value?.get().count == 5000)
        #expect(spy.calls.count == 2)
        #expect(performer.storedBytes == 0)
    }

    @Test func errorStatusesAreNotStoredAndReachTheErrorParser() throws {
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { _ in
                MockResponse(
                    status: 404, headers: ["Cache-Control": "max-age=60"],
                    data: Data(#"{"error": true, "reason": "gone"}"#.utf8))
            })
        let performer = CachedPerformer(spy, ResponseCache())
        let results = Captured<Result<Hit, any Error>>()

        performer.perform(
            TestRequest("http://example.test/gone"), errorParser: DecodableErrorParser<APIError>(),
            completion: results.capture)
        performer.perform(TestRequest("http://example.test/gone"), completion: results.capture)

        #expect(spy.calls.count == 2)
        #expect(performer.storedResponseCount == 0)
        #expect(throws: FetchError.self) { try results.value?.get() }
    }

    @Test func freshHitsReuseTheValueParsedBefore() throws {
        let mock = MockPerformer { _ in
            MockResponse(headers: ["Cache-Control": "max-age=60"], data: Data(#"{"hit": 1}"#.utf8))
        }
        let performer = CachedPerformer(mock, ResponseCache())
        let request = TestRequest("http://example.test/counted/\(UUID().uuidString)")
        let results = Captured<Result<CountedHit, any Error>>()
        let before = CountedHit.parses.withLock { $0 }

        for _ in 0..<3 {
            performer.perform(request, completion: results.capture)
        }

        #expect(try results.value?.get().hit == 1)
        #expect(CountedHit.parses.withLock { $0 } - before == 1, "parsed on arrival only, and kept for the hits")
    }
}

/// A model that counts how often it is parsed.
struct CountedHit: Decodable, Parsable {
    static let parses = Locked(0)

    let hit: Int

    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<CountedHit, any Error> {
        parses.withLock { $0 += 1 }
        return response.requireSuccess(errorParser: errorParser).flatMap {
            Parsing.decode(CountedHit.self, from: $0, with: decoder)
        }
    }
}
