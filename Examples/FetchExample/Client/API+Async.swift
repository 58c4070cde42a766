import Fetch
import Foundation

/// The `async` face of ``API``: the same calls, for callers that `await`. They never use a callback queue, so they
/// work in a command-line program whose main queue does not run; cancelling the awaiting `Task` cancels the request.
extension API {
    /// `POST api/users/login` with HTTP Basic authentication; on success, later calls send the token it returns.
    ///
    /// - Throws: ``APIError`` (401 for a wrong password), or a `FetchError`.
    @discardableResult
    func logIn(username: String, password: String) async throws -> TokenStore.SignedIn {
        let request = LogInRequest(baseURL: baseURL, username: username, password: password)
        let answer: LoginAnswer = try await performer.perform(request, errorParser: errorParser)
        let signedIn = TokenStore.SignedIn(token: answer.token, userID: answer.user.id)
        tokens.store(signedIn)
        return signedIn
    }

    /// `GET api/announcements`.
    func announcements() async throws -> [Announcement] {
        try await get("api/announcements")
    }

    /// `GET api/employees`.
    func employees() async throws -> [Employee] {
        try await get("api/employees")
    }

    /// `GET api/events`.
    func events() async throws -> [Event] {
        try await get("api/events")
    }

    /// `GET api/products`.
    func products() async throws -> [Product] {
        try await get("api/products")
    }

    /// `GET api/purchases`.
    func purchases() async throws -> [Purchase] {
        try await get("api/purchases")
    }

    /// `GET api/users/<id>`.
    func user(id: UUID) async throws -> User {
        try await get("api/users/\(id.uuidString.lowercased())")
    }

    /// `POST api/purchases` with `order`.
    ///
    /// - Throws: ``ExpenseLimitExceeded`` before sending anything when the order costs more than ``maxPOExpense``;
    ///   ``APIError`` when the server refuses it; a `FetchError` otherwise.
    func place(_ order: PurchaseOrder) async throws -> Purchase {
        try await performer.perform(placeRequest(for: order), errorParser: errorParser)
    }

    private func get<T: Parsable>(_ path: String) async throws -> T {
        try await performer.perform(getRequest(path), errorParser: errorParser)
    }
}
