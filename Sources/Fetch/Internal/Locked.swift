import Foundation

/// A value behind a lock, for the small amount of mutable state shared across threads in Fetch and FetchTesting.
///
/// `@unchecked Sendable`: every access to `value` goes through `withLock`, which holds `lock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
