import Foundation

/// The command line's stand-in for a dashboard screen: the delegate of a ``DashboardViewModel``, which notes what
/// arrives and on which queue, and lets the `async` flow await the end of the loading.
///
/// `@unchecked Sendable`: `state` is only touched while holding `lock`.
final class DashboardWaiter: DashboardViewModelDelegate, @unchecked Sendable {
    /// How the loading ended.
    enum Outcome: Sendable {
        case loaded(SignedIn, Dashboard)
        case loginFailed(any Error)
    }

    private struct State {
        var signedIn: SignedIn?
        var outcome: Outcome?
        var continuation: CheckedContinuation<Outcome, Never>?
        var delegateCalls = 0
        var callsOffTheCallbackQueue = 0
    }

    private let callbackQueue: OperationQueue
    private let lock = NSLock()
    private var state = State()

    /// - Parameter callbackQueue: The queue every delegate call should arrive on.
    init(callbackQueue: OperationQueue) {
        self.callbackQueue = callbackQueue
    }

    /// How many delegate calls arrived, and how many of them not on the callback queue.
    var delegateCalls: (total: Int, offTheCallbackQueue: Int) {
        withState { ($0.delegateCalls, $0.callsOffTheCallbackQueue) }
    }

    /// Waits until the view model has finished loading or failed to log in.
    ///
    /// The wait is bounded by the session's request timeout: every call the view model makes completes, with its
    /// answer or an error, so the delegate is always told.
    func outcome() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = withState { state -> Outcome? in
                guard let outcome = state.outcome else {
                    state.continuation = continuation
                    return nil
                }
                return outcome
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
    }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didLogIn signedIn: SignedIn) {
        noteCall()
        withState { $0.signedIn = signedIn }
    }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didFailToLogIn error: any Error) {
        noteCall()
        finish(with: .loginFailed(error))
    }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didUpdate dashboard: Dashboard) {
        noteCall()
    }

    func dashboardViewModel(_ viewModel: DashboardViewModel, didFinishLoading dashboard: Dashboard) {
        noteCall()
        guard let signedIn = withState({ $0.signedIn }) else {
            return
        }
        finish(with: .loaded(signedIn, dashboard))
    }

    private func noteCall() {
        let isOnCallbackQueue = OperationQueue.current === callbackQueue
        withState { state in
            state.delegateCalls += 1
            state.callsOffTheCallbackQueue += isOnCallbackQueue ? 0 : 1
        }
    }

    private func finish(with outcome: Outcome) {
        let continuation = withState { state -> CheckedContinuation<Outcome, Never>? in
            guard state.outcome == nil else {
                return nil
            }
            state.outcome = outcome
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
