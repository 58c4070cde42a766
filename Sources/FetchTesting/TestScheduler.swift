import Fetch
import Foundation

/// Virtual time for `Scheduling` clients such as the `.retry()` middleware: no test waits for a backoff or a deadline.
///
/// By default, time moves only through waits: work scheduled with `schedule(after:_:)` runs at once, inside the
/// call, with the clock moved forward by its delay, so a retried call completes before `perform` returns.
/// Timeouts (`scheduleTimeout(after:_:)`, such as a retry deadline) fire when a wait carries the clock past them:
///
/// ```swift
/// let scheduler = TestScheduler()
/// let performer = flakyMock.with(.retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: scheduler))
/// performer.perform(request, completion: result.capture)
/// #expect(scheduler.delays == [0.5, 1])
/// ```
///
/// With `runsImmediately: false`, nothing runs until the test calls ``advance(by:)``.
public final class TestScheduler: Scheduling {
    private struct Pending {
        let id: Int
        let due: Date
        let work: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var pending: [Pending] = []
        var delays: [TimeInterval] = []
        var nextID = 0
    }

    private let runsImmediately: Bool
    private let state: Locked<State>

    /// Creates a virtual clock.
    ///
    /// - Parameters:
    ///   - now: The virtual time at the start. The default is 2026-01-01T00:00:00Z.
    ///   - runsImmediately: Whether waits run at once (moving the clock) or wait for ``advance(by:)``. The default
    ///     is `true`.
    public init(now: Date = Date(timeIntervalSince1970: 1_767_225_600), runsImmediately: Bool = true) {
        self.runsImmediately = runsImmediately
        self.state = Locked(State(now: now))
    }

    /// The virtual time.
    public var now: Date {
        state.withLock { $0.now }
    }

    /// Every wait asked for with `schedule(after:_:)` so far, in order, including cancelled ones.
    public var delays: [TimeInterval] {
        state.withLock { $0.delays }
    }

    /// A wait: runs `work` after `delay` virtual seconds, at once (moving the clock and firing the timeouts it
    /// passes) or when ``advance(by:)`` gets there.
    ///
    /// - Parameters:
    ///   - delay: The virtual delay, in seconds.
    ///   - work: The work.
    /// - Returns: A handle that cancels the work if it has not run.
    @discardableResult
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any CancellableCall {
        state.withLock { $0.delays.append(delay) }
        guard runsImmediately else {
            return enqueue(after: delay, work)
        }
        advance(by: max(0, delay))
        work()
        return ScheduledCancellable {}
    }

    /// A timeout: runs `work` when the clock passes `delay` virtual seconds from now.
    ///
    /// - Parameters:
    ///   - delay: The virtual delay, in seconds.
    ///   - work: The work.
    /// - Returns: A handle that cancels the work if it has not run.
    @discardableResult
    public func scheduleTimeout(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void)
        -> any CancellableCall
    {
        enqueue(after: delay, work)
    }

    /// Moves the clock forward and runs, in order of their due time, the work that falls due.
    ///
    /// - Parameter seconds: How far to move the clock.
    public func advance(by seconds: TimeInterval) {
        let end = now.addingTimeInterval(seconds)
        while true {
            let next = state.withLock { state -> Pending? in
                guard let index = state.pending.indices.min(by: { state.pending[$0].due < state.pending[$1].due }),
                    state.pending[index].due <= end
                else {
                    return nil
                }
                let pending = state.pending.remove(at: index)
                state.now = max(state.now, pending.due)
                return pending
            }
            guard let next else {
                break
            }
            next.work()
        }
        state.withLock { $0.now = max($0.now, end) }
    }

    private func enqueue(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any CancellableCall {
        let id = state.withLock { state in
            state.nextID += 1
            state.pending.append(
                Pending(id: state.nextID, due: state.now.addingTimeInterval(max(0, delay)), work: work))
            return state.nextID
        }
        return ScheduledCancellable { [state] in
            state.withLock { $0.pending.removeAll { $0.id == id } }
        }
    }
}

private struct ScheduledCancellable: CancellableCall {
    let onCancel: @Sendable () -> Void

    func cancel() {
        onCancel()
    }
}
