import Dispatch
import Foundation

/// The clock and timer that time-dependent performers (retry backoff, deadlines) use, so that tests can replace
/// real time with virtual time.
///
/// FetchTesting's `TestScheduler` runs scheduled work at once, or when the test advances its clock, with no real
/// waiting.
public protocol Scheduling: Sendable {
    /// The current time.
    var now: Date { get }

    /// Runs `work` once, after `delay` seconds.
    ///
    /// - Parameters:
    ///   - delay: How long to wait, in seconds; `0` or less runs the work as soon as possible.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started.
    @discardableResult
    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any CancellableCall

    /// Runs `work` once, after `delay` seconds, as a timeout: work that should happen only if time gets that far.
    ///
    /// Real clocks treat it exactly as ``schedule(after:_:)``, which is the default. Virtual clocks may not: in
    /// FetchTesting's `TestScheduler`, time moves only through the waits of ``schedule(after:_:)``, and a timeout
    /// fires when they carry the clock past it.
    ///
    /// - Parameters:
    ///   - delay: How long from now, in seconds.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started.
    @discardableResult
    func scheduleTimeout(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any CancellableCall
}

extension Scheduling {
    /// Runs `work` after `delay` seconds through ``schedule(after:_:)``.
    ///
    /// - Parameters:
    ///   - delay: How long from now, in seconds.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started.
    @discardableResult
    public func scheduleTimeout(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void)
        -> any CancellableCall
    {
        schedule(after: delay, work)
    }
}

extension Scheduling {
    /// Waits `delay` seconds on this scheduler: a reconnection's backoff. Cancelling the task ends the wait with
    /// ``FetchError/cancelled(request:)``.
    package func wait(_ delay: TimeInterval) async throws {
        let waiter = Locked<CheckedContinuation<Void, any Error>?>(nil)
        let scheduled = Locked<(any CancellableCall)?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiter.withLock { $0 = continuation }
                let work = schedule(after: delay) {
                    waiter.withLock { $0.take() }?.resume()
                }
                scheduled.withLock { $0 = work }
                if Task.isCancelled {
                    work.cancel()
                    waiter.withLock { $0.take() }?.resume(throwing: FetchError.cancelled())
                }
            }
        } onCancel: {
            scheduled.withLock { $0 }?.cancel()
            waiter.withLock { $0.take() }?.resume(throwing: FetchError.cancelled())
        }
    }
}

/// Real time: `Date()` and Dispatch timers on a global queue.
public struct DispatchScheduler: Scheduling {
    /// Creates the real-time scheduler.
    public init() {}

    /// The current time, `Date()`.
    public var now: Date { Date() }

    /// Runs `work` on a global queue after `delay` seconds.
    ///
    /// - Parameters:
    ///   - delay: How long to wait, in seconds.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started.
    @discardableResult
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any CancellableCall {
        let item = DispatchWorkItem(block: work)
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, delay), execute: item)
        return ScheduledWork(item: item)
    }
}

/// Cancels a `DispatchWorkItem`. `@unchecked Sendable`: `DispatchWorkItem.cancel()` is thread-safe.
private struct ScheduledWork: CancellableCall, @unchecked Sendable {
    let item: DispatchWorkItem

    func cancel() {
        item.cancel()
    }
}
