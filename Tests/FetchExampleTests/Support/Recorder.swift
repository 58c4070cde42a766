// A copy of Tests/FetchTests/Support/Recorder.swift: test targets share no sources without a support target.

import Fetch
import Foundation

/// Collects values delivered by callbacks on any thread, and lets a test wait for them without blocking a thread,
/// for a bounded time.
final class Recorder<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let count: Int
        let continuation: CheckedContinuation<[Value], any Error>
    }

    private struct State {
        var values: [Value] = []
        var waiter: Waiter?
        var nextWaiterID = 0
    }

    private let state = Locked(State())

    /// Everything recorded so far, in order.
    var values: [Value] {
        state.withLock { $0.values }
    }

    /// Records a value; callable from any thread.
    func record(_ value: Value) {
        let ready = state.withLock { state -> (CheckedContinuation<[Value], any Error>, [Value])? in
            state.values.append(value)
            guard let waiter = state.waiter, state.values.count >= waiter.count else {
                return nil
            }
            state.waiter = nil
            return (waiter.continuation, state.values)
        }
        if let (continuation, values) = ready {
            continuation.resume(returning: values)
        }
    }

    /// Waits until `count` values have been recorded and returns them all, or throws after `timeout`.
    func wait(for count: Int = 1, timeout: Duration = .seconds(15)) async throws -> [Value] {
        try await withCheckedThrowingContinuation { continuation in
            let id = state.withLock { state -> Int? in
                guard state.values.count < count else {
                    return nil
                }
                state.nextWaiterID += 1
                state.waiter = Waiter(id: state.nextWaiterID, count: count, continuation: continuation)
                return state.nextWaiterID
            }
            guard let id else {
                continuation.resume(returning: values)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(waiterID: id)
            }
        }
    }

    /// The first value recorded, waiting for it if need be.
    func first(timeout: Duration = .seconds(15)) async throws -> Value {
        let values = try await wait(for: 1, timeout: timeout)
        guard let first = values.first else {
            throw ChildProcessError("no value was recorded")
        }
        return first
    }

    private func expire(waiterID: Int) {
        let expired = state.withLock { state -> (CheckedContinuation<[Value], any Error>, Int, Int)? in
            guard let waiter = state.waiter, waiter.id == waiterID else {
                return nil
            }
            state.waiter = nil
            return (waiter.continuation, waiter.count, state.values.count)
        }
        if let (continuation, wanted, got) = expired {
            continuation.resume(throwing: ChildProcessError("waited for \(wanted) callbacks, got \(got)"))
        }
    }
}
