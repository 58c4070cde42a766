import Fetch
import Foundation

/// The client of the demo company API: one method per endpoint, in the callback style; `API+Async.swift` has the
/// same calls for `async` callers.
///
/// It is written against `RequestPerforming`, so the app hands it a `Session` and the tests a `MockPerformer` or a
/// `SpyPerformer`. Callbacks arrive where the performer delivers them: on a `Session`'s callback queue.
///
/// ```swift
/// let api = API(baseURL: url, performer: Session(configuration: .default, callbackQueue: queue), maxPOExpense: limit)
/// api.logIn(username: "ada", password: "…") { result in … }
/// ```
///
/// After ``logIn(username:password:completion:)`` succeeds, every call sends `Authorization: Bearer <token>`;
/// ``logOut()`` forgets the token. The token is kept in a ``TokenStore``, since callbacks come from other threads.
final class API: Sendable {
    /// The server's base URL, for example `http://127.0.0.1:8080/`.
    let baseURL: URL
    /// What sends the requests.
    let performer: any RequestPerforming
    /// The most a purchase order may cost; ``place(_:completion:)`` refuses a dearer order without sending it.
    let maxPOExpense: Money
    /// Turns the API's error bodies into ``APIError``s.
    let errorParser = APIErrorParser()

    /// The token of the user logged in.
    let tokens = TokenStore()

    init(baseURL: URL, performer: any RequestPerforming, maxPOExpense: Money) {
        self.baseURL = baseURL
        self.performer = performer
        self.maxPOExpense = maxPOExpense
    }

    /// The user logged in, or `nil` when no one is.
    var signedIn: TokenStore.SignedIn? {
        tokens.current
    }

    /// `POST api/users/login` with HTTP Basic authentication; on success, later calls send the token it returns.
    ///
    /// A failed login leaves an earlier login in place.
    @discardableResult
    func logIn(
        username: String,
        password: String,
        completion: @escaping @Sendable (Result<TokenStore.SignedIn, any Error>) -> Void
    ) -> any Cancellable {
        let request = LogInRequest(baseURL: baseURL, username: username, password: password)
        return performer.perform(request, errorParser: errorParser) {
            [tokens] (result: Result<LoginAnswer, any Error>) in
            completion(
                result.map { answer in
                    let signedIn = TokenStore.SignedIn(token: answer.token, userID: answer.user.id)
                    tokens.store(signedIn)
                    return signedIn
                }
            )
        }
    }

    /// Forgets the token: later calls go without `Authorization`, and the server refuses them.
    func logOut() {
        tokens.clear()
    }

    /// `GET api/announcements`.
    @discardableResult
    func announcements(completion: @escaping @Sendable (Result<[Announcement], any Error>) -> Void) -> any Cancellable {
        get("api/announcements", completion: completion)
    }

    /// `GET api/employees`.
    @discardableResult
    func employees(completion: @escaping @Sendable (Result<[Employee], any Error>) -> Void) -> any Cancellable {
        get("api/employees", completion: completion)
    }

    /// `GET api/events`.
    @discardableResult
    func events(completion: @escaping @Sendable (Result<[Event], any Error>) -> Void) -> any Cancellable {
        get("api/events", completion: completion)
    }

    /// `GET api/products`.
    @discardableResult
    func products(completion: @escaping @Sendable (Result<[Product], any Error>) -> Void) -> any Cancellable {
        get("api/products", completion: completion)
    }

    /// `GET api/purchases`.
    @discardableResult
    func purchases(completion: @escaping @Sendable (Result<[Purchase], any Error>) -> Void) -> any Cancellable {
        get("api/purchases", completion: completion)
    }

    /// `GET api/users/<id>`.
    @discardableResult
    func user(id: UUID, completion: @escaping @Sendable (Result<User, any Error>) -> Void) -> any Cancellable {
        get("api/users/\(id.uuidString.lowercased())", completion: completion)
    }

    /// `POST api/purchases` with `order`, unless its total is above ``maxPOExpense``: then `completion` is called
    /// at once, on the calling thread, with ``ExpenseLimitExceeded``, and nothing is sent.
    @discardableResult
    func place(
        _ order: PurchaseOrder,
        completion: @escaping @Sendable (Result<Purchase, any Error>) -> Void
    ) -> any Cancellable {
        let request: PlacePurchaseOrderRequest
        do {
            request = try placeRequest(for: order)
        } catch {
            completion(.failure(error))
            return NothingSent()
        }
        return performer.perform(request, errorParser: errorParser, completion: completion)
    }

    /// The request that places `order`.
    ///
    /// - Throws: ``ExpenseLimitExceeded`` when the order costs more than ``maxPOExpense``; `EncodingError` when it
    ///   cannot be encoded.
    func placeRequest(for order: PurchaseOrder) throws -> PlacePurchaseOrderRequest {
        guard order.total <= maxPOExpense else {
            throw ExpenseLimitExceeded(total: order.total, limit: maxPOExpense)
        }
        return try PlacePurchaseOrderRequest(baseURL: baseURL, order: order, token: tokens.current?.token)
    }

    /// The `GET` of `path` with the current token.
    func getRequest(_ path: String) -> AuthorizedGet {
        AuthorizedGet(baseURL: baseURL, path: path, token: tokens.current?.token)
    }

    private func get<T: Parsable>(
        _ path: String,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        performer.perform(getRequest(path), errorParser: errorParser, completion: completion)
    }
}

/// The handle of a call that was refused before anything was sent: there is nothing to cancel.
private struct NothingSent: Cancellable {
    func cancel() {}
}
