/// One call of a performer that wraps another and may make several calls for it (retries, a replay after a token
/// refresh), with timers between them.
///
/// It ends exactly once: through ``finish()`` by whoever delivers the result, or through ``cancel()``, which cancels
/// the step in progress and reports the cancellation. `state`'s lock decides which comes first.
package final class CompositeCall: Cancellable {
    private struct State {
        var isFinished = false
        var current: (any Cancellable)?
        var endActions: [@Sendable () -> Void] = []
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

    /// Runs `action` when the call ends, however it ends (at once if it has ended): to stop a deadline timer, say.
    package func onEnd(_ action: @escaping @Sendable () -> Void) {
        let hasEnded = state.withLock { state in
            if !state.isFinished {
                state.endActions.append(action)
            }
            return state.isFinished
        }
        if hasEnded {
            action()
        }
    }

    /// Ends the call; returns whether this caller ended it and so must deliver the result.
    package func finish() -> Bool {
        let actions = state.withLock { state -> [@Sendable () -> Void]? in
            guard !state.isFinished else {
                return nil
            }
            state.isFinished = true
            state.current = nil
            defer { state.endActions = [] }
            return state.endActions
        }
        guard let actions else {
            return false
        }
        for action in actions {
            action()
        }
        return true
    }

    /// Cancels the step in progress and reports the cancellation, unless the call has already ended.
    package func cancel() {
        end(reporting: reportCancellation)
    }

    /// Ends the call unless it has already ended: cancels the step in progress, then runs `report`, which delivers
    /// the call's result (a deadline's timeout, say).
    package func end(reporting report: () -> Void) {
        let ended = state.withLock { state -> (step: (any Cancellable)?, actions: [@Sendable () -> Void])? in
            guard !state.isFinished else {
                return nil
            }
            state.isFinished = true
            defer {
                state.current = nil
                state.endActions = []
            }
            return (state.current, state.endActions)
        }
        guard let ended else {
            return
        }
        ended.step?.cancel()
        for action in ended.actions {
            action()
        }
        report()
    }
}
