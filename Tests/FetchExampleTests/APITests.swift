import Fetch
import FetchTesting
import Foundation
import Testing

@testable import FetchExample

/// The example's API client, synchronously through the FetchTesting doubles: what each call sends (`SpyPerformer`),
/// and what it makes of the answers (`MockPerformer`).
@Suite struct APITests {
    /// A mock that accepts the login, so that later calls carry the token.
    let loginMock = MockPerformer(routes: [.post("/api/users/login", .json(Fixtures.loginJSON))])

    // MARK: - What is sent

    @Test func logInPostsBasicCredentialsToTheLoginPath() throws {
        let spy = SpyPerformer()
        Fixtures.api(spy).logIn(username: "ada", password: "secret") { _ in }
        let request = try #require(spy.requests.last)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "http://api.example.test/api/users/login")
        #expect(request.headers["Authorization"] == "Basic YWRhOnNlY3JldA==")
    }

    @Test func logInEncodesTheCredentialsAsUTF8() {
        let spy = SpyPerformer()
        Fixtures.api(spy).logIn(username: "ada", password: "zoë") { _ in }
        #expect(spy.requests.last?.headers["Authorization"] == "Basic YWRhOnpvw6s=")
    }

    @Test func everyCallAfterTheLoginSendsTheBearerToken() {
        let spy = SpyPerformer(forwardingTo: loginMock)
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        api.announcements { _ in }
        api.employees { _ in }
        api.events { _ in }
        api.products { _ in }
        api.purchases { _ in }
        api.user(id: Fixtures.userID) { _ in }
        api.place(Fixtures.order(Fixtures.laptopStand, quantity: 1)) { _ in }
        let authorizations = spy.requests.dropFirst().map { $0.headers["Authorization"] }
        #expect(authorizations == Array(repeating: "Bearer t0k3n", count: 7))
    }

    @Test func eachListIsAGetOfItsPath() {
        let spy = SpyPerformer()
        let api = Fixtures.api(spy)
        api.announcements { _ in }
        api.employees { _ in }
        api.events { _ in }
        api.products { _ in }
        api.purchases { _ in }
        api.user(id: Fixtures.userID) { _ in }
        #expect(
            spy.requests.map { "\($0.method) \($0.url.path)" } == [
                "GET /api/announcements", "GET /api/employees", "GET /api/events", "GET /api/products",
                "GET /api/purchases", "GET /api/users/5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01",
            ])
    }

    @Test func beforeAnyLoginCallsGoWithoutAuthorization() throws {
        let spy = SpyPerformer()
        Fixtures.api(spy).employees { _ in }
        let request = try #require(spy.requests.last)
        #expect(request.url.path == "/api/employees" && request.headers["Authorization"] == nil)
    }

    @Test func aLoginAfterALoginStillSendsBasicCredentials() {
        let spy = SpyPerformer(forwardingTo: loginMock)
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        api.logIn(username: "grace", password: "cobol") { _ in }
        #expect(
            spy.requests.map { $0.headers["Authorization"] } == ["Basic YWRhOnNlY3JldA==", "Basic Z3JhY2U6Y29ib2w="])
    }

    @Test func aUserNameWithAColonIsRefusedWithoutSendingAnything() {
        let spy = SpyPerformer()
        let login = Captured<Result<SignedIn, any Error>>()
        Fixtures.api(spy).logIn(username: "ada:admin", password: "secret", completion: login.capture)
        #expect(spy.requests.isEmpty)
        #expect(login.value?.failure.map { "\($0)".contains("cannot contain a colon") } == true)
    }

    @Test func logOutForgetsTheToken() {
        let spy = SpyPerformer(forwardingTo: loginMock)
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        api.logOut()
        api.employees { _ in }
        #expect(api.signedIn == nil && spy.requests.last?.headers["Authorization"] == nil)
    }

    @Test func aPurchaseOrderIsPostedAsJSONWithISO8601Dates() throws {
        let spy = SpyPerformer(forwardingTo: loginMock)
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        api.place(Fixtures.order(Fixtures.laptopStand, quantity: 3)) { _ in }
        let request = try #require(spy.requests.last)
        #expect(request.method == .post && request.url.path == "/api/purchases")
        #expect(request.headers == ["Content-Type": "application/json", "Authorization": "Bearer t0k3n"])
        let body = String(decoding: try #require(request.body), as: UTF8.self)
        #expect(
            body == #"{"deliverBy":"2026-12-14T09:00:00Z","items":[{"productID":1,"quantity":3}],"#
                + #""orderedAt":"2026-11-30T09:00:00Z"}"#
        )
    }

    @Test func anOrderAboveTheLimitIsRefusedWithoutSendingAnything() {
        let spy = SpyPerformer()
        let purchase = Captured<Result<Purchase, any Error>>()
        Fixtures.api(spy).place(Fixtures.order(Fixtures.standingDesk, quantity: 8), completion: purchase.capture)
        #expect(spy.requests.isEmpty)
        #expect(throws: ExpenseLimitExceeded(total: Money(cents: 519_600), limit: Money(cents: 500_000))) {
            try purchase.value?.get()
        }
    }

    @Test func anOrderExactlyAtTheLimitIsSent() {
        let spy = SpyPerformer()
        let api = API(baseURL: Fixtures.server, performer: spy, maxPOExpense: Money(cents: 64_950))
        api.place(Fixtures.order(Fixtures.standingDesk, quantity: 1)) { _ in }
        #expect(spy.requests.count == 1)
    }

    @Test func theRefusalSaysTheTotalAndTheLimit() {
        let refusal = ExpenseLimitExceeded(total: Money(cents: 519_600), limit: Money(cents: 500_000))
        #expect(
            refusal.description
                == "refused before sending: the order's total 5196.00 is above the maxPOExpense limit of 5000.00"
        )
    }

    @Test func theAsyncFormRefusesAnOrderAboveTheLimitToo() async {
        let spy = SpyPerformer()
        await #expect(throws: ExpenseLimitExceeded.self) {
            try await Fixtures.api(spy).place(Fixtures.order(Fixtures.standingDesk, quantity: 8))
        }
        #expect(spy.requests.isEmpty)
    }

    // MARK: - What is made of the answers

    @Test func logInKeepsTheTokenAndTheUser() throws {
        let api = Fixtures.api(loginMock)
        let login = Captured<Result<SignedIn, any Error>>()
        api.logIn(username: "ada", password: "secret", completion: login.capture)
        #expect(try login.value?.get() == SignedIn(token: "t0k3n", userID: Fixtures.userID))
        #expect(api.signedIn?.token == "t0k3n")
    }

    @Test func theAsyncLogInKeepsTheTokenToo() async throws {
        let api = Fixtures.api(loginMock)
        try await api.logIn(username: "ada", password: "secret")
        #expect(api.signedIn?.userID == Fixtures.userID)
    }

    @Test func aFailedLogInKeepsTheEarlierLogin() {
        let mock = MockPerformer { request in
            request.headers["Authorization"] == "Basic YWRhOnNlY3JldA=="
                ? .json(Fixtures.loginJSON)
                : .json(#"{"error": true, "reason": "wrong username or password"}"#, status: 401)
        }
        let api = Fixtures.api(mock)
        api.logIn(username: "ada", password: "secret") { _ in }
        api.logIn(username: "ada", password: "wrong") { _ in }
        #expect(api.signedIn?.token == "t0k3n")
    }

    @Test func aWrongPasswordBecomesTheServersReason() {
        let mock = MockPerformer { _ in .json(#"{"error": true, "reason": "wrong username or password"}"#, status: 401)
        }
        let login = Captured<Result<SignedIn, any Error>>()
        Fixtures.api(mock).logIn(username: "ada", password: "wrong", completion: login.capture)
        #expect(throws: APIError(status: 401, reason: "wrong username or password")) { try login.value?.get() }
    }

    @Test func anErrorMessageSaysTheStatusAndTheReason() {
        let error = APIError(status: 401, reason: "wrong username or password")
        #expect(error.description == "the server answered 401 (unauthorized): wrong username or password")
    }

    @Test func anErrorBodyOfAnotherShapeIsQuotedWhole() throws {
        let mock = MockPerformer { _ in MockResponse(status: 502, data: Data("<html>Bad gateway</html>".utf8)) }
        let employees = Captured<Result<[Employee], any Error>>()
        Fixtures.api(mock).employees(completion: employees.capture)
        let error = try #require(employees.value?.failure as? FetchError)
        #expect(error.description.hasSuffix("502 Bad Gateway: <html>Bad gateway</html>"))
    }

    @Test func readsAnnouncementsWithOrWithoutFractionalSeconds() throws {
        let mock = MockPerformer { _ in
            .json(
                #"[{"id": 1, "title": "A", "body": "B", "publishedAt": "2026-11-23T09:00:00Z"},"#
                    + #"{"id": 2, "title": "C", "body": "D", "publishedAt": "2026-11-27T14:30:00.250Z"}]"#
            )
        }
        let announcements = Captured<Result<[Announcement], any Error>>()
        Fixtures.api(mock).announcements(completion: announcements.capture)
        #expect(
            try announcements.value?.get().map(\.publishedAt.timeIntervalSince1970) == [
                1_795_424_400, 1_795_789_800.25,
            ])
    }

    @Test func readsPricesAsExactCents() throws {
        let mock = MockPerformer { _ in .json(#"[{"id": 4, "name": "Headphones", "price": 299.99}]"#) }
        let products = Captured<Result<[Product], any Error>>()
        Fixtures.api(mock).products(completion: products.capture)
        #expect(try products.value?.get().first?.price == Money(cents: 29_999))
    }

    @Test func readsAPurchaseWithoutADeliveryDate() throws {
        let mock = MockPerformer { _ in
            .json(
                #"{"id": "PO-1003", "requestedBy": "5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01", "total": 149.7,"#
                    + #""items": [{"productID": 1, "quantity": 3}], "orderedAt": "2026-11-30T09:00:00Z","#
                    + #""deliverBy": null, "status": "approved"}"#,
                status: 201
            )
        }
        let purchase = Captured<Result<Purchase, any Error>>()
        Fixtures.api(mock).place(Fixtures.order(Fixtures.laptopStand, quantity: 3), completion: purchase.capture)
        #expect(try purchase.value?.get().total == Money(cents: 14_970))
    }

    @Test func readsAUser() throws {
        let mock = MockPerformer { _ in
            .json(
                #"{"id": "5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01", "username": "ada", "name": "Ada Lovelace","#
                    + #""email": "ada@example.com", "department": "Engineering", "title": "Principal Engineer"}"#
            )
        }
        let user = Captured<Result<User, any Error>>()
        Fixtures.api(mock).user(id: Fixtures.userID, completion: user.capture)
        #expect(try user.value?.get().name == "Ada Lovelace")
    }

    @Test func aListThatIsNotTheExpectedShapeSaysWhere() throws {
        let mock = MockPerformer { _ in .json(#"[{"id": 1, "name": "Ada"}]"#) }
        let employees = Captured<Result<[Employee], any Error>>()
        Fixtures.api(mock).employees(completion: employees.capture)
        let error = try #require(employees.value?.failure as? FetchError)
        #expect(error.description.contains("department"))
    }
}

extension Result {
    /// The error of a failure, or `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self {
            return error
        }
        return nil
    }
}
