import Fetch
import Foundation

/// The `async` face of ``API``: the same calls through the same middlewares, for callers that `await`. They never
/// use a callback queue, so they work in a command-line program whose main queue does not run; cancelling the
/// awaiting `Task` cancels the request, or the wait before a retry, or the new login it waits for.
extension API {
    /// `POST api/users/login` with HTTP Basic authentication; on success, later calls send the token it returns,
    /// and log in again with the same credentials when the server turns that token down.
    ///
    /// - Throws: ``APIError`` (401 for a wrong password), or a `FetchError`.
    @discardableResult
    func logIn(username: String, password: String) async throws -> SignedIn {
        let request = Self.logInRequest(baseURL: baseURL, username: username, password: password)
        let answer: LoginAnswer = try await unauthenticated.perform(request, errorParser: errorParser)
        return keep(answer, username: username, password: password)
    }

    /// `GET api/announcements`.
    func announcements() async throws -> [Announcement] {
        try await authenticated.perform(request("announcements"), errorParser: errorParser)
    }

    /// `GET api/employees`.
    func employees() async throws -> [Employee] {
        try await authenticated.perform(request("employees"), errorParser: errorParser)
    }

    /// `GET api/events`.
    func events() async throws -> [Event] {
        try await authenticated.perform(request("events"), errorParser: errorParser)
    }

    /// `GET api/products`.
    func products() async throws -> [Product] {
        try await authenticated.perform(request("products"), errorParser: errorParser)
    }

    /// `GET api/purchases`.
    func purchases() async throws -> [Purchase] {
        try await authenticated.perform(request("purchases"), errorParser: errorParser)
    }

    /// `GET api/users/<id>`.
    func user(id: UUID) async throws -> User {
        try await authenticated.perform(userRequest(id: id), errorParser: errorParser)
    }

    /// `POST api/purchases` with `order`.
    ///
    /// - Throws: ``ExpenseLimitExceeded`` before sending anything when the order costs more than ``maxPOExpense``;
    ///   ``APIError`` when the server refuses it; a `FetchError` otherwise.
    func place(_ order: PurchaseOrder) async throws -> Purchase {
        try await authenticated.perform(placeRequest(for: order), errorParser: errorParser)
    }
}
