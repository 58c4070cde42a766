/// One call of a performer that wraps another and may make several calls for it (retries, a replay after a token
/// refresh), with timers between them.
///
/// It ends exactly once: through ``finish()`` by whoever delivers the result, or through ``cancel()``, which cancels
/// the step in progress and reports the cancellation. `state`'s lock decides which comes first.
package final class CompositeCall: Cancellable {
    private struct State {
        var isFinished = false
        var current: (any Cancellable)?
    }

    private let state = Locked(State())
    private let reportCancellation: @Sendable () -> Void

    /// - Parameter reportCancellation: Delivers ``FetchError/cancelled`` to the caller.
    package init(reportCancellation: @escaping @Sendable () -> Void) {
        self.reportCancellation = reportCancellation
    }

    /// Whether the call has ended.
    package var isFinished: Bool {
        state.withLock { $0.isFinished }
    }

    /// Makes `step` the one that ``cancel()`` cancels; cancels `step` at once if the call has already ended.
    package func track(_ step: any Cancellable) {
        let isFinished = state.withLock { state in
            if !state.isFinished {
                state.current = step
            }
            return state.isFinished
        }
        if isFinished {
            step.cancel()
        }
    }

    /// Ends the call; returns whether this caller ended it and so must deliver the result.
    package func finish() -> Bool {
        state.withLock { state in
            guard !state.isFinished else {
                return false
            }
            state.isFinished = true
            state.current = nil
            return true
        }
    }

    /// Cancels the step in progress and reports the cancellation, unless the call has already ended.
    package func cancel() {
        let step = state.withLock { state -> (any Cancellable)?? in
            guard !state.isFinished else {
                return nil
            }
            state.isFinished = true
            defer { state.current = nil }
            return .some(state.current)
        }
        guard let step else {
            return
        }
        step?.cancel()
        reportCancellation()
    }
}
