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
    // README-BEGIN
    let api =
        session
        .with(.observe { event in print(event) })  // GET https://api.example.com/users/1 → 200 OK, 312 bytes in 4.1 ms
        .with(.adapt([.header("User-Agent", "MyApp/1.0"), .requestID()]))
        .with(.authenticate(with: tokens))
        .with(.retry(RetryPolicy(maximumAttempts: 4, deadline: 30)))
    let user: User = try await api.perform(GetUser(baseURL: baseURL, id: 1))
    // README-END
    _ = user
}

// README-BEGIN
@Test func retriesAfterA503() throws {
    let spy = SpyPerformer()
    let user = Captured<Result<User, any Error>>()
    spy.with(.retry(scheduler: TestScheduler())).perform(GetUser(baseURL: baseURL, id: 1), completion: user.capture)
    spy.complete(with: MockResponse(status: 503))
    #expect(spy.requests.count == 2)
    spy.complete(with: .json(#"{"id": 1, "name": "Ada"}"#))
    #expect(try user.value?.get().name == "Ada")
}
// README-END

func tokenSample(session: Session, savedToken: String?) -> BearerAuthenticator {
    // README-BEGIN
    let tokens = BearerAuthenticator(token: savedToken) {
        let answer: TokenResponse = try await session.perform(RefreshToken(baseURL: baseURL))
        return answer.token
    }
    // README-END
    return tokens
}

func redirectSample() -> Session {
    // README-BEGIN
    let transport = URLSessionTransport(
        configuration: .default,
        redirectPolicy: RedirectPolicy(maximumRedirects: 3, sensitiveHeaders: ["Authorization", "Cookie", "X-API-Key"])
    )
    let session = Session(transport: transport)
    // README-END
    return session
}

func curlSample() throws {
    // README-BEGIN
    print(try GetUser(baseURL: baseURL, id: 1).curlCommand(redacting: ["X-API-Key"]))
    // README-END
}

// README-BEGIN
struct Signing: Middleware {
    let sign: @Sendable (URLRequest) -> String  // for example an HMAC of the method, path and body
    let report: @Sendable (Duration) -> Void

    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        do {
            var signed = try request.makeURLRequest()
            signed.setValue(sign(signed), forHTTPHeaderField: "X-Signature")
            let started = ContinuousClock.now
            next(AdaptedRequest(original: request, urlRequest: signed)) { result in
                report(ContinuousClock.now - started)
                completion(result)
            }
        } catch {
            completion(.failure(error))
        }
    }
}
// README-END

func middlewareSample(session: Session) -> Pipeline {
    // README-BEGIN
    let api = session.with(.retry(), Signing(sign: { _ in "signature" }, report: { print("took \($0)") }))
    // README-END
    return api
}

// README-BEGIN
@Test func signsEveryRequestAndReportsItsLatency() throws {
    let spy = SpyPerformer()
    let latencies = Captured<Duration>()
    let api = spy.with(Signing(sign: { _ in "signature" }, report: latencies.capture))
    let user = Captured<Result<User, any Error>>()
    api.perform(GetUser(baseURL: baseURL, id: 1), completion: user.capture)
    #expect(spy.requests.first?.headers["X-Signature"] == "signature")
    spy.complete(with: .json(#"{"id": 1, "name": "Ada"}"#))
    #expect(try user.value?.get().name == "Ada")
    #expect(latencies.values.count == 1)
}
// README-END
