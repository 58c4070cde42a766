import Fetch
import FetchTesting
import Foundation
import Testing

@testable import FetchExample

/// The delegate-style consumer of the API. `MockPerformer` completes synchronously, so by the time
/// `logInAndLoad` returns the delegate has heard everything.
@Suite struct DashboardViewModelTests {
    static let lists: [MockPerformer.Route] = [
        .post("/api/users/login", .json(Fixtures.loginJSON)),
        .get("/api/announcements", .json("[]")),
        .get("/api/employees", .json(#"[{"id":1,"name":"Ada","department":"R&D","title":"CTO","email":"a@x"}]"#)),
        .get("/api/events", .json("[]")),
        .get("/api/products", .json(#"[{"id": 1, "name": "Laptop stand", "price": 49.9}]"#)),
        .get("/api/purchases", .json("[]")),
    ]

    @Test func logsInThenTellsTheDelegateAboutEveryList() {
        let delegate = DelegateSpy()
        let viewModel = DashboardViewModel(api: Fixtures.api(MockPerformer(routes: Self.lists)))
        viewModel.delegate = delegate
        viewModel.logInAndLoad(username: "ada", password: "secret")
        #expect(delegate.events == ["logged in", "update", "update", "update", "update", "update", "finished 1 1"])
    }

    @Test func aFailedLoginLoadsNothing() {
        let spy = SpyPerformer(
            forwardingTo: MockPerformer { _ in .json(#"{"error": true, "reason": "wrong password"}"#, status: 401) })
        let delegate = DelegateSpy()
        let viewModel = DashboardViewModel(api: Fixtures.api(spy))
        viewModel.delegate = delegate
        viewModel.logInAndLoad(username: "ada", password: "wrong")
        #expect(delegate.events == ["login failed: the server answered 401 (unauthorized): wrong password"])
        #expect(spy.requests.count == 1)
    }

    @Test func aListThatFailsIsReportedAndTheRestStillFinish() throws {
        let routes = Self.lists.filter { $0.path != "/api/events" }
        let delegate = DelegateSpy()
        let viewModel = DashboardViewModel(api: Fixtures.api(MockPerformer(routes: routes)))
        viewModel.delegate = delegate
        viewModel.logInAndLoad(username: "ada", password: "secret")
        let dashboard = try #require(delegate.finished)
        #expect(dashboard.events?.failure is MockPerformer.NoAnswer)
        #expect(try dashboard.employees?.get().count == 1)
    }

    @Test func theDelegateIsHeldWeakly() {
        let viewModel = DashboardViewModel(api: Fixtures.api(MockPerformer(routes: Self.lists)))
        viewModel.delegate = DelegateSpy()
        #expect(viewModel.delegate == nil)
    }
}

/// Records what a ``DashboardViewModel`` tells its delegate, as short strings.
private final class DelegateSpy: DashboardViewModelDelegate, Sendable {
    private let recorded = Locked((events: [String](), finished: Dashboard?.none))

    var events: [String] { recorded.withLock { $0.events } }
    var finished: Dashboard? { recorded.withLock { $0.finished } }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didLogIn signedIn: SignedIn) {
        recorded.withLock { $0.events.append("logged in") }
    }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didFailToLogIn error: any Error) {
        recorded.withLock { $0.events.append("login failed: \(error)") }
    }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didUpdate dashboard: Dashboard) {
        recorded.withLock { $0.events.append("update") }
    }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didFinishLoading dashboard: Dashboard) {
        let employees = (try? dashboard.employees?.get().count) ?? -1
        let products = (try? dashboard.products?.get().count) ?? -1
        recorded.withLock {
            $0.events.append("finished \(employees) \(products)")
            $0.finished = dashboard
        }
    }
}
