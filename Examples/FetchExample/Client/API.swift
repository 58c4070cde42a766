import Fetch
import Foundation

/// The client of the demo company API: one method per endpoint, in the callback style; `API+Async.swift` has the
/// same calls for `async` callers.
///
/// It is written against `RequestPerforming`, so the app hands it a `Session` and the tests a `MockPerformer` or a
/// `SpyPerformer`, and it puts Fetch's middlewares in front of whichever it is given:
///
/// - ``logIn(username:password:completion:)`` sends HTTP Basic credentials straight to that performer;
/// - every other call goes through `.authenticate(with:)`, which sends `Authorization: Bearer <token>` with the
///   token of the latest login and, when the server turns that token down (401), logs in again with the same
///   credentials and replays the call once;
/// - through `.retry()`, which tries a `GET` again after a connection failure, a timeout or a 408, 429, 502,
///   503 or 504. A `POST` is never sent twice: the default `RetryPolicy` retries only idempotent methods;
/// - and through `.traceContext()`, which sends W3C Trace Context: one trace per call, a span per attempt.
///
/// The pipeline underneath completes each call once, on the callback queue of the `Session` at the bottom, whatever
/// the stack; over the FetchTesting doubles, before the call returns.
///
/// ```swift
/// let api = API(baseURL: url, performer: Session(transport: URLSessionTransport(configuration: .default), callbackQueue: queue), maxPOExpense: limit)
/// api.logIn(username: "ada", password: "…") { result in … }
/// ```
///
/// ``logOut()`` forgets the token and the credentials; later calls go without `Authorization`, and the server's
/// refusal reaches the caller as it is.
final class API: Sendable {
    /// The server's base URL, for example `http://127.0.0.1:8080/`.
    let baseURL: URL
    /// The most a purchase order may cost; ``place(_:completion:)`` refuses a dearer order without sending it.
    let maxPOExpense: Money
    /// Turns the API's error bodies into ``APIError``s.
    let errorParser = APIErrorParser()

    /// The performer given, observed when there is an observer: what the logins go through.
    let unauthenticated: any RequestPerforming
    /// `unauthenticated` behind authentication and retries: what every other call goes through.
    let authenticated: any RequestPerforming

    /// The token of the latest login, which `authenticated` puts on each call and renews.
    private let tokens: BearerAuthenticator
    /// The account of the latest login, whose credentials renew the token.
    private let accounts: AccountStore

    /// Creates the client.
    ///
    /// - Parameters:
    ///   - baseURL: The server's base URL.
    ///   - performer: What sends the requests: a `Session`, or a FetchTesting double.
    ///   - maxPOExpense: The most a purchase order may cost.
    ///   - retryPolicy: When to try a call again. The default retries idempotent calls up to 3 times in all.
    ///   - scheduler: The clock of the waits between attempts; tests pass FetchTesting's `TestScheduler`.
    ///   - onEvent: Called with each exchange with the server (every attempt, every new login) and each wait
    ///     before a retry, or `nil` to observe nothing.
    init(
        baseURL: URL,
        performer: any RequestPerforming,
        maxPOExpense: Money,
        retryPolicy: RetryPolicy = .default,
        scheduler: any Scheduling = DispatchScheduler(),
        onEvent: (@Sendable (FetchEvent) -> Void)? = nil
    ) {
        // Innermost, the observer sees what goes over the wire: a 401, the new login and the replay; each attempt.
        let unauthenticated: any RequestPerforming = onEvent.map { performer.with(.observe($0)) } ?? performer
        let accounts = AccountStore()
        let tokens = BearerAuthenticator(token: nil) { completion in
            // The new login goes through `unauthenticated`: it carries its own Basic credentials, and a login that
            // is turned down must fail the calls waiting for it, not ask for another login.
            guard let account = accounts.current else {
                completion(.failure(LoggedOut()))
                return
            }
            let request = Self.logInRequest(baseURL: baseURL, username: account.username, password: account.password)
            unauthenticated.perform(request, as: LoginAnswer.self, errorParser: APIErrorParser()) { result in
                completion(result.map(\.token))
            }
        }
        self.baseURL = baseURL
        self.maxPOExpense = maxPOExpense
        self.unauthenticated = unauthenticated
        // Outermost, the trace: every attempt of a call (a retry, the replay after a new login) sends a W3C
        // `traceparent` in the call's trace, with a span of its own, and the call's events carry both.
        self.authenticated = unauthenticated.with(
            .traceContext(),
            .retry(retryPolicy, scheduler: scheduler),
            .authenticate(with: LoginAuthenticator(tokens: tokens)))
        self.tokens = tokens
        self.accounts = accounts
    }

    /// The user logged in, or `nil` when no one is.
    var signedIn: SignedIn? {
        guard let account = accounts.current, let token = tokens.token else {
            return nil
        }
        return SignedIn(token: token, userID: account.userID)
    }

    /// `POST api/users/login` with HTTP Basic authentication; on success, later calls send the token it returns,
    /// and log in again with the same credentials when the server turns that token down.
    ///
    /// A failed login leaves an earlier login in place. A user name with a colon, which Basic authentication cannot
    /// send, fails at once, on the calling thread, with `FetchError.invalidRequest`, and nothing is sent.
    @discardableResult
    func logIn(
        username: String,
        password: String,
        completion: @escaping @Sendable (Result<SignedIn, any Error>) -> Void
    ) -> any CancellableCall {
        let request = Self.logInRequest(baseURL: baseURL, username: username, password: password)
        return unauthenticated.perform(request, errorParser: errorParser) {
            [self] (result: Result<LoginAnswer, any Error>) in
            completion(result.map { keep($0, username: username, password: password) })
        }
    }

    /// Forgets the token and the credentials: later calls go without `Authorization`, and the server refuses them.
    func logOut() {
        accounts.clear()
        tokens.setToken(nil)
    }

    /// `GET api/announcements`.
    @discardableResult
    func announcements(completion: @escaping @Sendable (Result<[Announcement], any Error>) -> Void)
        -> any CancellableCall
    {
        authenticated.perform(request("announcements"), errorParser: errorParser, completion: completion)
    }

    /// `GET api/employees`.
    @discardableResult
    func employees(completion: @escaping @Sendable (Result<[Employee], any Error>) -> Void) -> any CancellableCall {
        authenticated.perform(request("employees"), errorParser: errorParser, completion: completion)
    }

    /// `GET api/events`.
    @discardableResult
    func events(completion: @escaping @Sendable (Result<[Event], any Error>) -> Void) -> any CancellableCall {
        authenticated.perform(request("events"), errorParser: errorParser, completion: completion)
    }

    /// `GET api/products`.
    @discardableResult
    func products(completion: @escaping @Sendable (Result<[Product], any Error>) -> Void) -> any CancellableCall {
        authenticated.perform(request("products"), errorParser: errorParser, completion: completion)
    }

    /// `GET api/purchases`.
    @discardableResult
    func purchases(completion: @escaping @Sendable (Result<[Purchase], any Error>) -> Void) -> any CancellableCall {
        authenticated.perform(request("purchases"), errorParser: errorParser, completion: completion)
    }

    /// `GET api/users/<id>`.
    @discardableResult
    func user(id: UUID, completion: @escaping @Sendable (Result<User, any Error>) -> Void) -> any CancellableCall {
        authenticated.perform(userRequest(id: id), errorParser: errorParser, completion: completion)
    }

    /// `POST api/purchases` with `order`, unless its total is above ``maxPOExpense``: then `completion` is called
    /// at once, on the calling thread, with ``ExpenseLimitExceeded``, and nothing is sent.
    @discardableResult
    func place(
        _ order: PurchaseOrder,
        completion: @escaping @Sendable (Result<Purchase, any Error>) -> Void
    ) -> any CancellableCall {
        let request: APIRequest
        do {
            request = try placeRequest(for: order)
        } catch {
            completion(.failure(error))
            return NothingSent()
        }
        return authenticated.perform(request, errorParser: errorParser, completion: completion)
    }

    // MARK: - Requests

    /// `POST api/users/login` with `Authorization: Basic base64("username:password")`.
    ///
    /// A `username` with a colon makes building it fail with `FetchError.invalidRequest`, so nothing is sent.
    static func logInRequest(baseURL: URL, username: String, password: String) -> APIRequest {
        APIRequest(baseURL)
            .path("api", "users", "login")
            .method(.post)
            .header(.authorization(username: username, password: password))
    }

    /// `GET api/<segments>`, each segment percent-encoded.
    func request(_ segments: String...) -> APIRequest {
        segments.reduce(APIRequest(baseURL).path("api")) { $0.path($1) }
    }

    /// `GET api/users/<id>`.
    func userRequest(id: UUID) -> APIRequest {
        request("users", id.uuidString.lowercased())
    }

    /// `POST api/purchases` with `order` as JSON: ISO-8601 dates and sorted keys, the request builder's default.
    ///
    /// - Throws: ``ExpenseLimitExceeded`` when the order costs more than ``maxPOExpense``.
    func placeRequest(for order: PurchaseOrder) throws -> APIRequest {
        guard order.total <= maxPOExpense else {
            throw ExpenseLimitExceeded(total: order.total, limit: maxPOExpense)
        }
        return request("purchases").method(.post).jsonBody(order)
    }

    /// Keeps a successful login: its token for the calls, its credentials for the next login when the token is
    /// turned down.
    func keep(_ answer: LoginAnswer, username: String, password: String) -> SignedIn {
        accounts.store(AccountStore.Account(username: username, password: password, userID: answer.user.id))
        tokens.setToken(answer.token)
        return SignedIn(token: answer.token, userID: answer.user.id)
    }
}

extension API {
    /// The failure of a new login asked for after ``API/logOut()``, when a call sent before it was turned down.
    struct LoggedOut: Error, CustomStringConvertible {
        var description: String { "logged out: there are no credentials any more to log in again with" }
    }
}

/// The handle of a call that was refused before anything was sent: there is nothing to cancel.
private struct NothingSent: CancellableCall {
    func cancel() {}
}
