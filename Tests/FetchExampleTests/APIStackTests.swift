import Fetch
import FetchTesting
import Foundation
import Testing

@testable import FetchExample

/// The middlewares the API stacks over the performer it is given: the bearer token, a new login when the server
/// turns the token down, retries of idempotent calls, and the observer --debug prints. Over the doubles and a
/// `TestScheduler`, each call completes, retries and new login included, before it returns.
@Suite struct APIStackTests {
    static let employeesJSON = #"[{"id": 1, "name": "Ada", "department": "R&D", "title": "CTO", "email": "a@x"}]"#
    static let expired = MockResponse.json(#"{"error": true, "reason": "the token expired"}"#, status: 401)

    /// A server whose login answers `t1`, then `t2`, and so on, and whose `GET api/employees` accepts only the
    /// token `accepted`.
    static func server(accepting accepted: String) -> MockPerformer {
        let logins = Locked(0)
        return MockPerformer { request in
            switch (request.method, request.url.path) {
            case (.post, "/api/users/login"):
                let count = logins.withLock { count in
                    count += 1
                    return count
                }
                return .json(#"{"token": "t\#(count)", "user": {"id": "5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01"}}"#)
            case (.get, "/api/employees"):
                return request.headers["Authorization"] == "Bearer \(accepted)" ? .json(employeesJSON) : expired
            default:
                return MockResponse(status: 404)
            }
        }
    }

    /// Each request as `METHOD path Authorization`, `-` for none.
    static func summary(_ requests: [any Request]) -> [String] {
        requests.map { "\($0.method) \($0.url.path) \($0.headers["Authorization"] ?? "-")" }
    }

    @Test func aTurnedDownTokenLogsInAgainWithTheSameCredentialsAndReplaysTheCall() throws {
        let spy = SpyPerformer(forwardingTo: Self.server(accepting: "t2"))
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        let employees = Captured<Result<[Employee], any Error>>()
        api.employees(completion: employees.capture)
        #expect(try employees.value?.get().map(\.name) == ["Ada"])
        #expect(
            Self.summary(spy.requests) == [
                "POST /api/users/login Basic YWRhOnNlY3JldA==",
                "GET /api/employees Bearer t1",
                "POST /api/users/login Basic YWRhOnNlY3JldA==",
                "GET /api/employees Bearer t2",
            ])
        #expect(api.signedIn == SignedIn(token: "t2", userID: Fixtures.userID))
    }

    @Test func theAsyncFormLogsInAgainToo() async throws {
        let spy = SpyPerformer(forwardingTo: Self.server(accepting: "t2"))
        let api = Fixtures.api(spy)
        try await api.logIn(username: "ada", password: "secret")
        #expect(try await api.employees().count == 1)
        #expect(spy.requests.count == 4 && api.signedIn?.token == "t2")
    }

    @Test func aReplayTurnedDownAgainIsDeliveredAfterOneNewLogin() throws {
        let spy = SpyPerformer(forwardingTo: Self.server(accepting: "never"))
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        let employees = Captured<Result<[Employee], any Error>>()
        api.employees(completion: employees.capture)
        #expect(throws: APIError(status: 401, reason: "the token expired")) { try employees.value?.get() }
        #expect(spy.requests.filter { $0.url.path == "/api/users/login" }.count == 2)
        #expect(spy.requests.count == 4)
    }

    @Test func aNewLoginThatIsRefusedFailsTheCallAndSaysWhy() throws {
        let refusesLogins = Locked(false)
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { request in
                guard request.url.path == "/api/users/login" else {
                    return Self.expired
                }
                return request.headers["Authorization"] == "Basic YWRhOnNlY3JldA==" && !refusesLogins.withLock { $0 }
                    ? .json(Fixtures.loginJSON)
                    : .json(#"{"error": true, "reason": "wrong username or password"}"#, status: 401)
            })
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        refusesLogins.withLock { $0 = true }
        let employees = Captured<Result<[Employee], any Error>>()
        api.employees(completion: employees.capture)
        let error = try #require(employees.value?.failure as? FetchError)
        guard case .credentialRefreshFailed(let refusal, let response) = error.fetchKind else {
            Issue.record("expected credentialRefreshFailed, got \(error)")
            return
        }
        #expect(refusal as? APIError == APIError(status: 401, reason: "wrong username or password"))
        #expect(response.status == 401)
        #expect(spy.requests.count == 3)
    }

    @Test func afterLogOutTheServersRefusalArrivesAsItIsAndNoOneLogsInAgain() throws {
        let spy = SpyPerformer(forwardingTo: Self.server(accepting: "t1"))
        let api = Fixtures.api(spy)
        api.logIn(username: "ada", password: "secret") { _ in }
        api.logOut()
        let employees = Captured<Result<[Employee], any Error>>()
        api.employees(completion: employees.capture)
        #expect(throws: APIError(status: 401, reason: "the token expired")) { try employees.value?.get() }
        #expect(Self.summary(spy.requests) == ["POST /api/users/login Basic YWRhOnNlY3JldA==", "GET /api/employees -"])
    }

    @Test func aGetIsTriedAgainAfterA503() throws {
        let attempts = Locked(0)
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { _ in
                attempts.withLock { count in
                    count += 1
                    return count
                } < 3 ? MockResponse(status: 503) : .json(Self.employeesJSON)
            })
        let employees = Captured<Result<[Employee], any Error>>()
        Fixtures.api(spy).employees(completion: employees.capture)
        #expect(try employees.value?.get().count == 1)
        #expect(spy.requests.map(\.url.path) == Array(repeating: "/api/employees", count: 3))
    }

    @Test func aPurchaseOrderIsSentOnceEvenAfterA503() throws {
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { _ in .json(#"{"error": true, "reason": "try later"}"#, status: 503) })
        let purchase = Captured<Result<Purchase, any Error>>()
        Fixtures.api(spy).place(Fixtures.order(Fixtures.laptopStand, quantity: 1), completion: purchase.capture)
        #expect(throws: APIError(status: 503, reason: "try later")) { try purchase.value?.get() }
        #expect(spy.requests.count == 1)
    }

    @Test func theObserverSeesEachExchangeOfANewLogin() {
        let events = Captured<String>()
        let api = Fixtures.api(Self.server(accepting: "t2")) { event in
            guard event.name == .finished else {
                return
            }
            events.capture(
                event.description.replacingOccurrences(
                    of: #" in [0-9.]+ (ms|s)$"#, with: "", options: .regularExpression))
        }
        api.logIn(username: "ada", password: "secret") { _ in }
        api.employees { _ in }
        #expect(
            events.values == [
                "POST http://api.example.test/api/users/login → 200 OK, 71 bytes",
                "GET http://api.example.test/api/employees → 401 Unauthorized, 46 bytes",
                "POST http://api.example.test/api/users/login → 200 OK, 71 bytes",
                "GET http://api.example.test/api/employees → 200 OK, 79 bytes",
            ])
    }

    @Test func theObserverSeesTheWaitBeforeARetry() throws {
        let attempts = Locked(0)
        let mock = MockPerformer { _ in
            attempts.withLock { count in
                count += 1
                return count
            } == 1 ? MockResponse(status: 503) : .json("[]")
        }
        let events = Captured<String>()
        Fixtures.api(mock) { event in
            // What the attempt itself reports is the attempt tests' concern.
            if ![.attemptStarted, .attemptFinished].contains(event.name) {
                events.capture("\(event)")
            }
        }.employees { _ in }
        let lines = events.values
        try #require(lines.count == 5, "\(lines)")
        #expect(
            lines[2].hasPrefix(
                "GET http://api.example.test/api/employees failed (503 Service Unavailable); attempt 2 in "))
    }
}
