import FetchTesting
import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A backend that answers each request with whose credentials it carried and how many requests it has had, so a
/// test can tell whose body a caller got and whether it came from the network.
final class WhoAsked: Sendable {
    private let calls = Locked(0)
    let headers: HeaderFields

    init(headers: HeaderFields = ["Cache-Control": "max-age=60"]) {
        self.headers = headers
    }

    var count: Int { calls.withLock { $0 } }

    /// The names of the header fields and query parameters that say who asked, besides the URL's user info.
    static let credentialNames = [
        "Authorization", "Cookie", "Proxy-Authorization", "X-API-Key", "X-Auth-Token", "X-Tenant", "access_token",
    ]

    /// Whose credentials `request` carried: the first credential field's value, else the URL's user info or
    /// credential parameter, else `nobody`.
    static func user(of request: any Request) -> String {
        if let value = credentialNames.lazy.compactMap({ request.headers[$0] }).first {
            return value
        }
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: true) else {
            return "nobody"
        }
        if let user = components.user {
            return user + ":" + (components.password ?? "")
        }
        let items = components.queryItems ?? []
        return items.first { credentialNames.contains($0.name) }?.value ?? "nobody"
    }

    var performer: MockPerformer {
        MockPerformer { [calls, headers] request in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            let user = WhoAsked.user(of: request)
            return MockResponse(headers: headers, data: Data(#"{"user":"\#(user)","call":\#(call)}"#.utf8))
        }
    }
}

/// What `WhoAsked` answers.
struct Answer: Decodable, Parsable, Equatable {
    let user: String
    let call: Int
}

/// ``CachedPerformer`` keeps users apart: a private cache keys responses by the request's credentials (hashed), a
/// shared one stores a response to credentials only when the server marks it shareable, no response with
/// `Set-Cookie` is stored, no credential is kept in clear, and one call drops a user's responses.
@Suite struct CachingMiddlewareIdentityTests {
    let directory: TemporaryDirectory
    let url = "http://example.test/profile/\(UUID().uuidString)"
    static let alice = ["Authorization": "Bearer alice-token-1f7c"]
    static let bob = ["Authorization": "Bearer bob-token-9a2e"]

    init() throws {
        directory = try TemporaryDirectory()
    }

    enum Storage: String, CaseIterable, CustomTestStringConvertible {
        case memory, disk
        var testDescription: String { rawValue }
    }

    func makePerformer(
        _ base: any RequestPerforming, _ storage: Storage, storesPrivateResponses: Bool = true,
        secrets: Redaction = ["X-Tenant"]
    ) throws -> CachedPerformer {
        switch storage {
        case .memory:
            return CachedPerformer(
                base, ResponseCache(storesPrivateResponses: storesPrivateResponses, secrets: secrets))
        case .disk:
            // No memory in front: every hit is read from disk.
            return try CachedPerformer(
                base,
                ResponseCache(
                    directory: directory.url, maximumBytes: 0, storesPrivateResponses: storesPrivateResponses,
                    secrets: secrets)
            )
        }
    }

    func perform<T: Parsable>(
        _ performer: CachedPerformer, _ headers: [String: String]?, path: String? = nil, as type: T.Type = T.self
    ) throws -> T {
        try perform(performer, headers, url: path.map { url + $0 } ?? url)
    }

    func perform<T: Parsable>(
        _ performer: CachedPerformer, _ headers: [String: String]?, url: String, as type: T.Type = T.self
    ) throws -> T {
        let result = Captured<Result<T, any Error>>()
        performer.perform(TestRequest(url, headers: headers.map { HeaderFields($0) }), completion: result.capture)
        return try #require(result.value).get()
    }

    @Test(
        arguments: Storage.allCases,
        [
            alice, ["Cookie": "session=alice-1f7c"], ["Proxy-Authorization": "Basic YTpi"],
            ["X-API-Key": "alice-key-1f7c"], ["X-Auth-Token": "alice-auth-1f7c"], ["X-Tenant": "alice-tenant-1f7c"],
        ])
    func aSecondUserNeverGetsTheFirstUsersResponseAndEachStillGetsHits(
        storage: Storage, aliceCredentials: [String: String]
    ) throws {
        let backend = WhoAsked()
        let performer = try makePerformer(backend.performer, storage)
        let name = try #require(aliceCredentials.keys.first)
        let bob = [name: "other-user-credential-77"]

        let aliceFirst: Answer = try perform(performer, aliceCredentials)
        let bobFirst: Answer = try perform(performer, bob)
        let nobody: Answer = try perform(performer, nil)
        let aliceAgain: Answer = try perform(performer, aliceCredentials)
        let bobAgain: Answer = try perform(performer, bob)
        let nobodyAgain: Answer = try perform(performer, nil)

        #expect(bobFirst.user == "other-user-credential-77", "Bob got the network's answer for Bob")
        #expect(nobody.user == "nobody")
        #expect(aliceAgain == aliceFirst, "Alice's hit")
        #expect(bobAgain == bobFirst, "Bob's hit")
        #expect(nobodyAgain == nobody)
        #expect(backend.count == 3)
    }

    @Test func aUsersResponsesOutliveARestartOnDiskForThatUserOnly() throws {
        let backend = WhoAsked()
        let aliceFirst: Answer = try perform(try makePerformer(backend.performer, .disk), Self.alice)

        let afterRestart = try makePerformer(backend.performer, .disk)
        #expect(try perform(afterRestart, Self.alice) == aliceFirst, "the salt on disk keeps Alice's key")
        let bobFirst: Answer = try perform(afterRestart, Self.bob)
        #expect(bobFirst.call == 2)
        #expect(bobFirst.user == Self.bob["Authorization"])
    }

    @Test(arguments: Storage.allCases)
    func aResponseWithSetCookieIsNeverStored(storage: Storage) throws {
        let backend = WhoAsked(headers: ["Cache-Control": "max-age=60", "Set-Cookie": "session=alice; HttpOnly"])
        let performer = try makePerformer(backend.performer, storage)

        let first: Response = try perform(performer, nil)
        let second: Response = try perform(performer, nil)

        #expect(first.headers["Set-Cookie"] == "session=alice; HttpOnly")
        #expect(try Answer.parse(response: second, errorParser: nil).get().call == 2, "from the network again")
        #expect(performer.storedResponseCount == 0)
    }

    @Test(
        arguments: Storage.allCases,
        [
            ("max-age=60", false), ("private, max-age=60", false), ("public, max-age=60", true),
            ("s-maxage=60, max-age=60", true), ("must-revalidate, max-age=60", true),
        ])
    func aSharedCacheStoresAResponseToCredentialsOnlyWhenMarkedShareable(
        storage: Storage, marking: (cacheControl: String, isStored: Bool)
    ) throws {
        let backend = WhoAsked(headers: ["Cache-Control": marking.cacheControl])
        let performer = try makePerformer(backend.performer, storage, storesPrivateResponses: false)

        let alice: Answer = try perform(performer, Self.alice)
        let bob: Answer = try perform(performer, Self.bob)

        if marking.isStored {
            #expect(bob == alice, "shareable: a shared cache serves it to anyone")
            #expect(backend.count == 1)
        } else {
            #expect(bob.user == Self.bob["Authorization"])
            #expect(backend.count == 2)
            #expect(performer.storedResponseCount == 0)
        }
    }

    @Test(arguments: Storage.allCases)
    func aCookieSetByARevalidationGoesToItsCallerOnlyNotIntoTheStore(storage: Storage) throws {
        let calls = Locked(0)
        let backend = MockPerformer { _ in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            switch call {
            case 1:
                return MockResponse(headers: ["Cache-Control": "no-cache", "ETag": #""v1""#], data: Data("{}".utf8))
            case 2: return MockResponse(status: 304, headers: ["ETag": #""v1""#, "Set-Cookie": "session=rotated"])
            default: return MockResponse(status: 304, headers: ["ETag": #""v1""#])
            }
        }
        let performer = try makePerformer(backend, storage)

        let first: Response = try perform(performer, nil)
        let revalidated: Response = try perform(performer, nil)
        let next: Response = try perform(performer, nil)

        #expect(first.headers["Set-Cookie"] == nil)
        #expect(revalidated.headers["Set-Cookie"] == "session=rotated", "the caller whose 304 set it")
        #expect(next.headers["Set-Cookie"] == nil, "the next caller: the stored response keeps no cookie")
        #expect(next.data == Data("{}".utf8))
        #expect(calls.withLock { $0 } == 3)
    }

    @Test(arguments: [false, true])
    func sMaxageIsTheLifetimeOfASharedCacheOnly(isShared: Bool) throws {
        let backend = WhoAsked(headers: ["Cache-Control": "max-age=10, s-maxage=120"])
        let clock = TestClock()
        let performer = CachedPerformer(
            backend.performer, ResponseCache(storesPrivateResponses: !isShared) { clock.now })

        _ = try perform(performer, nil) as Answer
        clock.advance(by: 60)
        _ = try perform(performer, nil) as Answer

        #expect(backend.count == (isShared ? 1 : 2), "fresh for 120 s in a shared cache, 10 s in a private one")
    }

    @Test(arguments: Storage.allCases)
    func aSharedCacheNeverStoresAPrivateResponseEvenWithoutCredentials(storage: Storage) throws {
        let backend = WhoAsked(headers: ["Cache-Control": "private, max-age=60"])
        let performer = try makePerformer(backend.performer, storage, storesPrivateResponses: false)
        _ = try perform(performer, nil) as Answer
        _ = try perform(performer, nil) as Answer
        #expect(backend.count == 2)
    }

    @Test func noCredentialIsKeptInClearOnDiskEvenForVary() throws {
        let network = SpyPerformer(
            forwardingTo: MockPerformer { _ in
                MockResponse(
                    headers: ["Cache-Control": "max-age=60", "Vary": "Authorization, Cookie"], data: Data("{}".utf8))
            })
        let performer = try makePerformer(network, .disk)
        let credentials = ["Authorization": "Bearer alice-token-1f7c", "Cookie": "session=alice-cookie-5d1"]

        _ = try perform(performer, credentials) as Data
        _ = try perform(performer, credentials) as Data
        #expect(network.calls.count == 1, "Vary matches the same credentials")
        _ = try perform(performer, ["Authorization": "Bearer alice-token-1f7c"]) as Data
        #expect(network.calls.count == 2, "another set of credentials is another user")

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(names.filter { $0.hasSuffix(".response") }.count == 2)
        for name in names {
            let contents = try Data(contentsOf: directory.url.appendingPathComponent(name))
            for secret in ["alice-token-1f7c", "alice-cookie-5d1"] {
                #expect(contents.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)")
            }
        }
    }

    @Test(arguments: Storage.allCases)
    func removeAllAuthorizedByDropsOneUsersResponsesOnly(storage: Storage) throws {
        let backend = WhoAsked()
        let performer = try makePerformer(backend.performer, storage)
        for path in ["/a", "/b"] {
            _ = try perform(performer, Self.alice, path: path) as Answer
            _ = try perform(performer, Self.bob, path: path) as Answer
        }
        _ = try perform(performer, nil, path: "/a") as Answer
        #expect(backend.count == 5)
        #expect(performer.storedResponseCount == 5)

        performer.removeAll(authorizedBy: [.authorization(bearerToken: "alice-token-1f7c")])

        #expect(performer.storedResponseCount == 3)
        _ = try perform(performer, Self.bob, path: "/a") as Answer
        _ = try perform(performer, nil, path: "/a") as Answer
        #expect(backend.count == 5, "Bob's and the anonymous responses stay")
        let aliceAgain: Answer = try perform(performer, Self.alice, path: "/b")
        #expect(aliceAgain.call == 6, "Alice's are gone")
    }

    @Test(
        arguments: Storage.allCases,
        [
            ("https://alice:pw-alice-1f7c@example.test/me", "https://alice:pw-bob-9a2e@example.test/me"),
            (
                "https://example.test/me?access_token=tok-alice-1f7c",
                "https://example.test/me?access_token=tok-bob-9a2e"
            ),
            ("https://example.test/me?page=1&X-Tenant=alice-1f7c", "https://example.test/me?page=1&X-Tenant=bob-9a2e"),
        ])
    func credentialsInTheURLKeepUsersApartToo(storage: Storage, urls: (alice: String, bob: String)) throws {
        let backend = WhoAsked()
        let performer = try makePerformer(backend.performer, storage)

        let aliceFirst: Answer = try perform(performer, nil, url: urls.alice)
        let bobFirst: Answer = try perform(performer, nil, url: urls.bob)
        let aliceAgain: Answer = try perform(performer, nil, url: urls.alice)
        let bobAgain: Answer = try perform(performer, nil, url: urls.bob)

        #expect(bobFirst.call == 2, "Bob's own answer, not Alice's")
        #expect(bobFirst.user != aliceFirst.user)
        #expect(aliceAgain == aliceFirst)
        #expect(bobAgain == bobFirst)
        #expect(backend.count == 2)
    }

    @Test(
        arguments: Storage.allCases,
        [
            (["X-API-Key": "alice-key"], "http://example.test/shared"),
            (["X-Auth-Token": "alice-auth"], "http://example.test/shared"),
            (["X-Tenant": "alice-tenant"], "http://example.test/shared"),
            ([:], "http://alice:pw@example.test/shared"),
            ([:], "http://example.test/shared?access_token=alice-token"),
        ])
    func aSharedCacheCountsEverySecretAsCredentials(storage: Storage, request: (headers: [String: String], url: String))
        throws
    {
        let backend = WhoAsked(headers: ["Cache-Control": "max-age=60"])
        let performer = try makePerformer(backend.performer, storage, storesPrivateResponses: false)

        _ = try perform(performer, request.headers, url: request.url) as Answer
        _ = try perform(performer, request.headers, url: request.url) as Answer

        #expect(backend.count == 2, "a response to credentials, not marked shareable: not stored")
        #expect(performer.storedResponseCount == 0)
    }

    @Test(arguments: Storage.allCases)
    func removeAllAuthorizedByDropsTheResponsesOfAnySecretField(storage: Storage) throws {
        let backend = WhoAsked()
        let performer = try makePerformer(backend.performer, storage)
        let alice = ["X-API-Key": "alice-key-1f7c", "X-Tenant": "acme"]
        let bob = ["X-API-Key": "bob-key-9a2e", "X-Tenant": "acme"]
        _ = try perform(performer, alice) as Answer
        _ = try perform(performer, bob) as Answer
        #expect(performer.storedResponseCount == 2)

        performer.removeAll(authorizedBy: [
            HTTPHeader(name: "x-tenant", value: "acme"), HTTPHeader(name: "X-Api-Key", value: "alice-key-1f7c"),
            .accept("application/json"),
        ])

        #expect(performer.storedResponseCount == 1)
        #expect((try perform(performer, bob) as Answer).call == 2, "Bob's stays")
        #expect((try perform(performer, alice) as Answer).call == 3, "Alice's is gone")
    }

    @Test func noSecretReachesTheDiskInClearWhereverTheRequestCarriesIt() throws {
        let network = SpyPerformer(
            forwardingTo: MockPerformer { _ in
                MockResponse(
                    headers: ["Cache-Control": "max-age=60", "Vary": "X-API-Key, X-Auth-Token, X-Tenant, Accept"],
                    data: Data("{}".utf8))
            })
        let secrets = [
            "key-alice-5d1e", "auth-alice-77c2", "tenant-alice-90ab", "pw-alice-3f3f", "tok-alice-c0de",
            "tid-alice-b33f",
        ]
        let headers = [
            "X-API-Key": "key-alice-5d1e", "X-Auth-Token": "auth-alice-77c2", "X-Tenant": "tenant-alice-90ab",
            "Accept": "application/json",
        ]
        let aliceURL =
            "https://alice:pw-alice-3f3f@example.test/me?access_token=tok-alice-c0de&tenant_id=tid-alice-b33f"
        let secretNames: Redaction = ["X-Tenant", "tenant_id"]
        let performer = try makePerformer(network, .disk, secrets: secretNames)

        let first: Response = try perform(performer, headers, url: aliceURL)
        let hit: Response = try perform(performer, headers, url: aliceURL)
        #expect(network.calls.count == 1, "the same credentials match their tags")
        #expect(hit.url?.absoluteString == aliceURL, "a hit carries the request's URL, not its tagged form")
        #expect(first.url == hit.url)
        let restarted = try makePerformer(network, .disk, secrets: secretNames)
        _ = try perform(restarted, headers, url: aliceURL) as Response
        #expect(network.calls.count == 1, "and so after a restart, with the salt on disk")
        var other = headers
        other["X-API-Key"] = "key-bob-0000"
        _ = try perform(restarted, other, url: aliceURL) as Response
        #expect(network.calls.count == 2, "another key is another user")
        let otherToken = aliceURL.replacingOccurrences(of: "tok-alice", with: "tok-bob")
        _ = try perform(restarted, headers, url: otherToken) as Response
        #expect(network.calls.count == 3, "another token is another user")

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(names.filter { $0.hasSuffix(".response") }.count == 3)
        for name in names {
            let contents = try Data(contentsOf: directory.url.appendingPathComponent(name))
            for secret in secrets + ["alice:", "key-bob", "tok-bob"] {
                #expect(contents.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)")
            }
        }
    }

    @Test func removeAllAuthorizedByWithoutCredentialsRemovesNothing() throws {
        let backend = WhoAsked()
        let performer = try makePerformer(backend.performer, .memory)
        _ = try perform(performer, nil) as Answer
        performer.removeAll(authorizedBy: [.accept("application/json")])
        #expect(performer.storedResponseCount == 1)
    }

    @Test func aSuccessfulUnsafeRequestRemovesItsUsersAndTheAnonymousResponse() throws {
        let backend = WhoAsked()
        let performer = try makePerformer(backend.performer, .memory)
        _ = try perform(performer, Self.alice) as Answer
        _ = try perform(performer, Self.bob) as Answer
        _ = try perform(performer, nil) as Answer

        let posted = Captured<Result<Data, any Error>>()
        performer.perform(
            TestRequest(url, method: .post, headers: HeaderFields(Self.alice)), completion: posted.capture)
        _ = try #require(posted.value).get()

        #expect(performer.storedResponseCount == 1, "Bob's stays: its key is not known without his credentials")
    }
}

/// The two-user case end to end, through each transport's `Session` against the test server.
///
/// The caches age responses by the suite's ``TestClock``, which moves only when a test moves it: a response's
/// freshness then says whose it is and whether it was stored, not how long the machine took between two calls (under
/// Thread Sanitizer, beside the other suites, CI saw 70 s between a test's first and third call, past `max-age=60`).
@Suite struct CachingMiddlewareIdentityServerTests {
    let server: TestServer
    let clock = TestClock()

    init() throws {
        server = try TestServer.running()
    }

    /// A cache on the suite's clock, in memory or (with `directory`) on disk with every hit read from disk.
    func makeCache(directory: URL?) throws -> ResponseCache {
        guard let directory else {
            return ResponseCache { [clock] in clock.now }
        }
        return try ResponseCache(directory: directory, maximumBytes: 0) { [clock] in clock.now }
    }

    func makePerformer(_ transport: SessionTransport, directory: URL?) throws -> CachedPerformer {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let session = try makeSession(transport, configuration: configuration)
        return CachedPerformer(session, try makeCache(directory: directory))
    }

    /// Moves the suite's clock and the clock of the `/cacheable` path forward together, as time passes for both.
    func advance(_ path: String, by seconds: TimeInterval) async throws {
        clock.advance(by: seconds)
        let id = path.split(separator: "/").last.map(String.init) ?? ""
        let request = TestRequest(server.url("/cacheable-clock/\(id)?advance=\(seconds)"), method: .post)
        let _: Data = try await Session().perform(request)
    }

    @Test(arguments: SessionTransport.allCases, [false, true])
    func userBNeverGetsUserAsBodyOrCookieThroughEitherTransport(transport: SessionTransport, onDisk: Bool)
        async throws
    {
        let directory = try TemporaryDirectory()
        let performer = try makePerformer(transport, directory: onDisk ? directory.url : nil)
        let path = "/cacheable/\(UUID().uuidString)"
        let plain = TestRequest(server.url(path + "?cc=max-age=60"))
        let alice = TestRequest(server.url(path + "?cc=max-age=60"), headers: ["Authorization": "Bearer alice"])
        let bob = TestRequest(server.url(path + "?cc=max-age=60"), headers: ["Authorization": "Bearer bob"])

        let aliceFirst: Hit = try await performer.perform(alice)
        let bobFirst: Hit = try await performer.perform(bob)
        let aliceAgain: Hit = try await performer.perform(alice)
        let bobAgain: Hit = try await performer.perform(bob)
        let nobody: Hit = try await performer.perform(plain)

        #expect(aliceFirst == Hit(hit: 1))
        #expect(bobFirst == Hit(hit: 2), "Bob's own answer, not Alice's")
        #expect(aliceAgain == aliceFirst)
        #expect(bobAgain == bobFirst)
        #expect(nobody == Hit(hit: 3))
        #expect(try await server.hits(path) == 3)

        // A response that sets a cookie is never stored, so nobody else is handed it.
        let cookiePath = "/cacheable/\(UUID().uuidString)"
        let login = TestRequest(server.url(cookiePath + "?cc=max-age=60&cookie=session%3Dalice"))
        let setting: Response = try await performer.perform(login)
        let other: Response = try await performer.perform(login)
        #expect(setting.headers["Set-Cookie"] == "session=alice")
        #expect(other.headers["Set-Cookie"] == "session=alice", "from the server again, for this caller")
        #expect(try Hit.parse(response: other, errorParser: nil).get() == Hit(hit: 2))
        #expect(try await server.hits(cookiePath) == 2)
    }

    @Test(arguments: SessionFace.allCases, [false, true])
    func usersThatDifferOnlyInAnAPIKeyOrATokenParameterStayApartOnEveryFace(face: SessionFace, onDisk: Bool)
        async throws
    {
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let directory = try TemporaryDirectory()
        let performer = CachedPerformer(session, try makeCache(directory: onDisk ? directory.url : nil))
        let path = "/cacheable/\(UUID().uuidString)"
        let url = server.url(path + "?cc=max-age=60")
        let alice = TestRequest(url, headers: ["X-API-Key": "alice-key-1f7c"])
        let bob = TestRequest(url, headers: ["X-API-Key": "bob-key-9a2e"])
        let aliceToken = TestRequest(server.url(path + "?cc=max-age=60&access_token=alice-tok-1f7c"))
        let bobToken = TestRequest(server.url(path + "?cc=max-age=60&access_token=bob-tok-9a2e"))

        #expect(try await performer.perform(alice) == Hit(hit: 1))
        #expect(try await performer.perform(bob) == Hit(hit: 2), "Bob's own answer, not Alice's")
        #expect(try await performer.perform(alice) == Hit(hit: 1))
        #expect(try await performer.perform(bob) == Hit(hit: 2))
        #expect(try await performer.perform(aliceToken) == Hit(hit: 3))
        #expect(try await performer.perform(bobToken) == Hit(hit: 4))
        #expect(try await performer.perform(aliceToken) == Hit(hit: 3))
        #expect(try await server.hits(path) == 4)

        guard onDisk else {
            return
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            let contents = try Data(contentsOf: directory.url.appendingPathComponent(name))
            for secret in ["alice-key-1f7c", "bob-key-9a2e", "alice-tok-1f7c", "bob-tok-9a2e"] {
                #expect(contents.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)")
            }
        }
    }

    /// Each user's response ages from its own fetch: the pauses CI's loaded run had (35 s after Alice's fetch, 30 s
    /// after Bob's) leave Alice's past `max-age=60`, refetched, and Bob's fresh, served from the store.
    @Test(arguments: SessionTransport.allCases, [false, true])
    func eachUsersResponseAgesFromItsOwnFetch(transport: SessionTransport, onDisk: Bool) async throws {
        let directory = try TemporaryDirectory()
        let performer = try makePerformer(transport, directory: onDisk ? directory.url : nil)
        let path = "/cacheable/\(UUID().uuidString)"
        let alice = TestRequest(server.url(path + "?cc=max-age=60"), headers: ["Authorization": "Bearer alice"])
        let bob = TestRequest(server.url(path + "?cc=max-age=60"), headers: ["Authorization": "Bearer bob"])

        let aliceFirst: Hit = try await performer.perform(alice)
        try await advance(path, by: 35)
        let bobFirst: Hit = try await performer.perform(bob)
        try await advance(path, by: 30)
        let aliceAgain: Hit = try await performer.perform(alice)
        let bobAgain: Hit = try await performer.perform(bob)

        #expect(aliceFirst == Hit(hit: 1))
        #expect(bobFirst == Hit(hit: 2))
        #expect(aliceAgain == Hit(hit: 3), "65 s old: stale, fetched again")
        #expect(bobAgain == bobFirst, "30 s old: fresh, from the store")
        #expect(try await server.hits(path) == 3)
    }
}
