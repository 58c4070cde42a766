import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct TokenResponse: Decodable, Parsable {
    let token: String
}

struct RefreshToken: Request {
    let baseURL: URL
    var url: URL { baseURL.appending(path: "token") }
    var method: HTTPMethod { .post }
}

func chainSample(session: Session, tokens: BearerAuthenticator) async throws {
    // DOC-BEGIN
    let api =
        session
        .with(.observe { event in print(event) })  // GET https://api.example.com/users/1 → 200 OK, 312 bytes in 4.1 ms
        .with(.header("User-Agent", "MyApp/1.0"), .requestID())
        .with(.authenticate(with: tokens))
        .with(.retry(RetryPolicy(maximumAttempts: 4, deadline: 30)))
    let user: User = try await api.perform(GetUser(baseURL: baseURL, id: 1))
    // DOC-END
    _ = user
}

// DOC-BEGIN
@Test func retriesAfterA503() throws {
    let spy = SpyPerformer()
    let user = Captured<Result<User, any Error>>()
    spy.with(.retry(scheduler: TestScheduler())).perform(GetUser(baseURL: baseURL, id: 1), completion: user.capture)
    spy.complete(with: MockResponse(status: 503))
    #expect(spy.requests.count == 2)
    spy.complete(with: .json(#"{"id": 1, "name": "Ada"}"#))
    #expect(try user.value?.get().name == "Ada")
}
// DOC-END

func tokenSample(session: Session, savedToken: String?) -> BearerAuthenticator {
    // DOC-BEGIN
    let tokens = BearerAuthenticator(token: savedToken) {
        let answer: TokenResponse = try await session.perform(RefreshToken(baseURL: baseURL))
        return answer.token
    }
    // DOC-END
    return tokens
}

func redirectSample() -> Session {
    // DOC-BEGIN
    var redirects = RedirectPolicy(maximumRedirects: 3)
    redirects.sensitiveHeaders.insert("X-API-Key")  // besides Authorization, Proxy-Authorization and Cookie
    let transport = URLSessionTransport(configuration: .default, redirectPolicy: redirects)
    let session = Session(transport: transport)
    // DOC-END
    return session
}

/// Every setting of a policy reads back through the public API (this target has no `package` access).
@Test func everyPolicySettingReadsBack() {
    let retry = RetryPolicy(
        maximumAttempts: 4, maximumRetryAfter: 5, deadline: 30, retryableMethods: [.post], retryableStatuses: [503],
        retryableErrors: [.timedOut], retriesTimeouts: false)
    #expect(retry.maximumAttempts == 4)
    #expect(retry.maximumRetryAfter == 5)
    #expect(retry.deadline == 30)
    #expect(retry.retryableMethods == [.post])
    #expect(retry.retryableStatuses == [503])
    #expect(retry.retryableErrors == [.timedOut])
    #expect(retry.retriesTimeouts == false)
    var redirects = RedirectPolicy(maximumRedirects: 3)
    redirects.sensitiveHeaders.insert("X-API-Key")
    #expect(redirects.maximumRedirects == 3)
    #expect(redirects.allowsInsecureRedirects == false)
    #expect(redirects.sensitiveHeaders == ["Authorization", "Proxy-Authorization", "Cookie", "X-API-Key"])
}

func curlSample() throws {
    // DOC-BEGIN
    print(try GetUser(baseURL: baseURL, id: 1).curlCommand(redacting: ["X-API-Key"]))
    // DOC-END
}
