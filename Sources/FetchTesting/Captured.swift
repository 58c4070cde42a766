import Fetch
import Foundation

/// Keeps what a `@Sendable` completion handler delivers: a synchronous test reads it on the next line, an `async`
/// test waits for it, for a bounded time.
///
/// Swift 6 does not let a `@Sendable` closure assign to a local `var`; hand `capture` to the call instead:
///
/// ```swift
/// let user = Captured<Result<User, any Error>>()
/// MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }.perform(GetUser(id: 1), completion: user.capture)
/// #expect(try user.value?.get().name == "Ada")
/// ```
///
/// With a performer that completes later, such as a `Session`, wait for the value without blocking a thread:
///
/// ```swift
/// session.perform(GetUser(id: 1), completion: user.capture)
/// let result = try await user.first()
/// ```
///
/// Thread-safe.
public final class Captured<Value: Sendable>: Sendable {
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

    /// Creates an empty capture.
    public init() {}

    /// Keeps `value`; callable from any thread. Pass this method as a completion handler.
    ///
    /// - Parameter value: The delivered value.
    @Sendable public func capture(_ value: Value) {
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

    /// The last value delivered, or `nil` when nothing was.
    public var value: Value? {
        state.withLock { $0.values.last }
    }

    /// Every value delivered, in order: a completion called twice shows here twice.
    public var values: [Value] {
        state.withLock { $0.values }
    }

    /// Waits until `count` values have been delivered, and returns them all.
    ///
    /// - Parameters:
    ///   - count: How many values to wait for. The default is 1.
    ///   - timeout: The longest wait, in seconds. The default is 15.
    /// - Returns: Every value delivered so far, at least `count` of them.
    /// - Throws: ``CaptureTimeout`` when fewer than `count` values arrive in time.
    public func wait(for count: Int = 1, timeout: TimeInterval = 15) async throws -> [Value] {
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
                try? await Task.sleep(for: .seconds(Self.boundedWait(timeout)))
                self.expire(waiterID: id, after: timeout)
            }
        }
    }

    /// The first value delivered, waiting for it if need be.
    ///
    /// - Parameter timeout: The longest wait, in seconds. The default is 15.
    /// - Returns: The first value.
    /// - Throws: ``CaptureTimeout`` when no value arrives in time.
    public func first(timeout: TimeInterval = 15) async throws -> Value {
        let values = try await wait(for: 1, timeout: timeout)
        guard let first = values.first else {
            throw CaptureTimeout(wanted: 1, received: 0, timeout: timeout)
        }
        return first
    }

    /// `timeout` as a wait `Duration` can hold: negative or NaN is no wait, and anything past a year (infinity
    /// included) is a year.
    private static func boundedWait(_ timeout: TimeInterval) -> TimeInterval {
        guard timeout > 0 else {
            return 0
        }
        return min(timeout, 365 * 24 * 3600)
    }

    private func expire(waiterID: Int, after timeout: TimeInterval) {
        let expired = state.withLock { state -> (CheckedContinuation<[Value], any Error>, Int, Int)? in
            guard let waiter = state.waiter, waiter.id == waiterID else {
                return nil
            }
            state.waiter = nil
            return (waiter.continuation, waiter.count, state.values.count)
        }
        if let (continuation, wanted, received) = expired {
            continuation.resume(throwing: CaptureTimeout(wanted: wanted, received: received, timeout: timeout))
        }
    }
}

/// The failure of a wait on ``Captured`` that did not see enough values in time.
public struct CaptureTimeout: Error, CustomStringConvertible {
    /// How many values the test waited for.
    package let wanted: Int

    /// How many arrived.
    package let received: Int

    /// How long the test waited, in seconds.
    package let timeout: TimeInterval

    /// `waited 15 seconds for 3 values, received 2`.
    public var description: String {
        "waited \(timeout) seconds for \(wanted) value\(wanted == 1 ? "" : "s"), received \(received)"
    }
}
