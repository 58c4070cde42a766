import Fetch
import Foundation

/// What a ``DashboardViewModel`` tells its delegate. Every method is called on the callback queue of the
/// performer the view model's ``API`` uses: the main queue in an app, a queue of its own in a command-line tool.
protocol DashboardViewModelDelegate: AnyObject, Sendable {
    /// The login succeeded; the lists are loading.
    func dashboardViewModel(_ viewModel: DashboardViewModel, didLogIn signedIn: SignedIn)

    /// The login failed; nothing else is loaded.
    func dashboardViewModel(_ viewModel: DashboardViewModel, didFailToLogIn error: any Error)

    /// One more list arrived or failed; `dashboard` is everything known so far.
    func dashboardViewModel(_ viewModel: DashboardViewModel, didUpdate dashboard: Dashboard)

    /// Every list arrived or failed.
    func dashboardViewModel(_ viewModel: DashboardViewModel, didFinishLoading dashboard: Dashboard)
}

/// The callback-style consumer of ``API``, as a UI layer would write it: it logs in, loads every list at once, and
/// tells its delegate as each arrives, on the callback queue.
///
/// `@unchecked Sendable`: its mutable state, `delegate` and `dashboard`, is only touched while holding `lock`, since
/// completions may run on any thread of the callback queue.
final class DashboardViewModel: @unchecked Sendable {
    private let api: API
    private let lock = NSLock()
    private weak var storedDelegate: (any DashboardViewModelDelegate)?
    private var dashboard = Dashboard()

    init(api: API) {
        self.api = api
    }

    /// The object told about logins and lists, held weakly.
    var delegate: (any DashboardViewModelDelegate)? {
        get { withLock { storedDelegate } }
        set { withLock { storedDelegate = newValue } }
    }

    /// Logs in, then loads the announcements, employees, events, products and purchases in parallel.
    func logInAndLoad(username: String, password: String) {
        api.logIn(username: username, password: password) { [self] result in
            switch result {
            case .success(let signedIn):
                delegate?.dashboardViewModel(self, didLogIn: signedIn)
                load()
            case .failure(let error):
                delegate?.dashboardViewModel(self, didFailToLogIn: error)
            }
        }
    }

    /// Loads every list in parallel, with the current login.
    func load() {
        withLock { dashboard = Dashboard() }
        api.announcements { [self] result in update { $0.announcements = result } }
        api.employees { [self] result in update { $0.employees = result } }
        api.events { [self] result in update { $0.events = result } }
        api.products { [self] result in update { $0.products = result } }
        api.purchases { [self] result in update { $0.purchases = result } }
    }

    private func update(_ change: (inout Dashboard) -> Void) {
        let (updated, delegate) = withLock {
            change(&dashboard)
            return (dashboard, storedDelegate)
        }
        delegate?.dashboardViewModel(self, didUpdate: updated)
        if updated.isComplete {
            delegate?.dashboardViewModel(self, didFinishLoading: updated)
        }
    }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
