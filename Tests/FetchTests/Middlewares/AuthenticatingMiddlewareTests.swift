import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An authenticator whose refreshes the test completes by hand.
final class ManualAuthenticator: Authenticator {
    private let state = Locked((token: "old", refreshes: 0, pending: [@Sendable (Result<Void, any Error>) -> Void]()))

    var refreshes: Int { state.withLock { $0.refreshes } }

    func apply(to request: inout AdaptedRequest) {
        request.headers["Authorization"] = "Bearer \(state.withLock { $0.token })"
    }

    func refresh(completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        state.withLock { state in
            state.refreshes += 1
            state.pending.append(completion)
        }
    }

    /// Completes the refreshes asked for so far: with a new token, or with `error`.
    func finishRefresh(token: String? = nil, error: (any Error)? = nil) {
        let pending = state.withLock { state in
            if let token {
                state.token = token
            }
            defer { state.pending = [] }
            return state.pending
        }
        for completion in pending {
            completion(error.map { .failure($0) } ?? .success(()))
        }
    }
}

extension SpyPerformer.Call {
    /// The Authorization header this call sent.
    var authorization: String? {
        (try? request.makeURLRequest())?.value(forHTTPHeaderField: "Authorization")
    }
}

@Suite struct AuthenticatingMiddlewareTests {
    let request = TestRequest("https://api.example.com/me")

    @Test func credentialsGoOnEveryRequest() {
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        spy.with(.authenticate(with: authenticator)).perform(request) { (_: Result<Data, any Error>) in }
        #expect(spy.calls.first?.authorization == "Bearer old")
    }

    @Test func rejectedRequestsShareOneRefreshAndAreEachReplayedOnce() throws {
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let performer = spy.with(.authenticate(with: authenticator))
        let results = Captured<Result<String, any Error>>()
        for _ in 0..<3 {
            performer.perform(request, completion: results.capture)
        }
        spy.complete(with: MockResponse(status: 401))
        #expect(authenticator.refreshes == 1)
        #expect(spy.pendingCalls.isEmpty)

        authenticator.finishRefresh(token: "new")
        #expect(spy.pendingCalls.map(\.authorization) == ["Bearer new", "Bearer new", "Bearer new"])
        spy.complete(with: .text("welcome"))
        #expect(try results.values.map { try $0.get() } == ["welcome", "welcome", "welcome"])
        #expect(spy.calls.count == 6)
    }

    @Test func aRequestRejectedAfterARefreshFinishedIsReplayedWithoutAnother() {
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let performer = spy.with(.authenticate(with: authenticator))
        let results = Captured<Result<String, any Error>>()
        performer.perform(request, completion: results.capture)
        performer.perform(request, completion: results.capture)
        spy.calls[0].complete(with: MockResponse(status: 401))
        authenticator.finishRefresh(token: "new")
        spy.calls[1].complete(with: MockResponse(status: 401))
        #expect(authenticator.refreshes == 1)
        #expect(spy.pendingCalls.map(\.authorization) == ["Bearer new", "Bearer new"])
    }

    @Test func aReplayThatIsRejectedAgainIsDeliveredNotLooped() throws {
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let result = Captured<Result<String, any Error>>()
        spy.with(.authenticate(with: authenticator))
            .perform(request, errorParser: DecodableErrorParser<APIError>(), completion: result.capture)
        spy.complete(with: MockResponse(status: 401))
        authenticator.finishRefresh(token: "new")
        spy.complete(with: .json(#"{"error": true, "reason": "account locked"}"#, status: 401))
        #expect(throws: APIError(error: true, reason: "account locked")) { try result.value?.get() }
        #expect(authenticator.refreshes == 1)
        #expect(spy.calls.count == 2)
    }

    @Test func aFailedRefreshFailsEveryWaitingRequestClearly() throws {
        struct TokenServiceDown: Error {}
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let performer = spy.with(.authenticate(with: authenticator))
        let results = Captured<Result<String, any Error>>()
        performer.perform(request, completion: results.capture)
        performer.perform(request, completion: results.capture)
        spy.complete(with: MockResponse(status: 401))
        authenticator.finishRefresh(error: TokenServiceDown())
        #expect(results.values.count == 2)
        for result in results.values {
            let error = try fetchError(result)
            guard case .credentialRefreshFailed(let cause, let response) = error.fetchKind else {
                Issue.record("expected .credentialRefreshFailed, got \(error)")
                continue
            }
            #expect(cause is TokenServiceDown)
            #expect(response.status == 401)
            #expect(response.originalRequest.url == request.url)
            #expect(
                error.description.hasPrefix(
                    "GET https://api.example.com/me → 401 Unauthorized, and refreshing the credentials failed"))
        }
        #expect(spy.calls.count == 2)
    }

    @Test func cancellingWhileWaitingForTheRefreshCompletesOnceWithCancelled() throws {
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let result = Captured<Result<String, any Error>>()
        let call = spy.with(.authenticate(with: authenticator)).perform(request, completion: result.capture)
        spy.complete(with: MockResponse(status: 401))
        call.cancel()
        authenticator.finishRefresh(token: "new")
        #expect(result.values.count == 1)
        #expect(spy.calls.count == 1)
        guard case .cancelled = try fetchError(result.value).fetchKind else {
            Issue.record("expected .cancelled")
            return
        }
    }

    @Test func bearerAuthenticatorSendsItsTokenAndKeepsTheRefreshedOne() async throws {
        let refreshes = Locked(0)
        let authenticator = BearerAuthenticator(token: nil) {
            refreshes.withLock { $0 += 1 }
            return "fresh"
        }
        let mock = MockPerformer { request in
            request.headers["Authorization"] == "Bearer fresh" ? .text("ok") : MockResponse(status: 401)
        }
        let answer: String = try await mock.with(.authenticate(with: authenticator)).perform(request)
        #expect(answer == "ok")
        #expect(authenticator.token == "fresh")
        #expect(refreshes.withLock { $0 } == 1)
        authenticator.setToken(nil)
        var adapted = AdaptedRequest(request)
        authenticator.apply(to: &adapted)
        #expect(adapted.headers["Authorization"] == nil)
    }
}

/// Token refresh against the loopback server: `/auth/<realm>/protected` accepts only the realm's current token,
/// which `/auth/<realm>/token` replaces (and counts).
@Suite struct AuthenticatingSessionTests {
    let server: TestServer
    let session = makeSession()

    init() throws {
        server = try TestServer.running()
    }

    struct Token: Decodable, Parsable {
        let token: String
    }

    struct Protected: Decodable, Parsable {
        let ok: Bool
        let token: String
    }

    func authenticator(realm: String, query: String = "") -> BearerAuthenticator {
        let session = session
        let tokenURL = server.url("/auth/\(realm)/token\(query)")
        return BearerAuthenticator(token: "expired") {
            let answer: Token = try await session.perform(TestRequest(tokenURL, method: .post))
            return answer.token
        }
    }

    @Test func fiftyConcurrentRejectionsMakeOneRefreshAndFiftySuccesses() async throws {
        let realm = UUID().uuidString
        let performer = session.with(.authenticate(with: authenticator(realm: realm, query: "?delay=200")))
        let url = server.url("/auth/\(realm)/protected")
        let answers = try await withThrowingTaskGroup(of: Protected.self) { group in
            for _ in 0..<50 {
                group.addTask { try await performer.perform(TestRequest(url)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 50)
        #expect(answers.allSatisfy { $0.ok && $0.token == "token-1" })
        #expect(try await server.hits("/auth/\(realm)/token") == 1)
        // 50 first attempts and one replay each for those rejected: never a second replay.
        #expect(try await server.hits("/auth/\(realm)/protected") <= 100)
    }

    @Test func aFailedRefreshFailsTheWaitingRequests() async throws {
        let realm = UUID().uuidString
        let performer = session.with(.authenticate(with: authenticator(realm: realm, query: "?fail=1&delay=800")))
        let url = server.url("/auth/\(realm)/protected")
        let results = try await withThrowingTaskGroup(of: Result<Protected, any Error>.self) { group in
            for _ in 0..<5 {
                group.addTask { await Result { try await performer.perform(TestRequest(url)) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results {
            guard case .credentialRefreshFailed = try fetchError(result).fetchKind else {
                Issue.record("expected .credentialRefreshFailed, got \(result)")
                return
            }
        }
        #expect(try await server.hits("/auth/\(realm)/token") == 1)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
