import Foundation

/// The readable account `fetch-example` prints: one line per step, `✓` when it went as expected, `✗` when not.
///
/// `@unchecked Sendable`: `failures` and `steps` are only touched while holding `lock`.
final class Transcript: @unchecked Sendable {
    private let write: @Sendable (String) -> Void
    private let lock = NSLock()
    private var steps = 0
    private var failures = 0

    /// - Parameter write: Where lines go; the default prints them to standard output.
    init(write: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.write = write
    }

    /// How many steps did not go as expected.
    var failureCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return failures
    }

    /// How many steps were recorded.
    var stepCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return steps
    }

    /// A line of its own, such as a heading.
    func note(_ line: String) {
        write(line)
    }

    /// A step that went as expected.
    func passed(_ line: String) {
        count(failed: false)
        write("  ✓ \(line)")
    }

    /// A step that did not go as expected.
    func failed(_ line: String) {
        count(failed: true)
        write("  ✗ \(line)")
    }

    /// Runs a step that should succeed, and records the summary it returns or its error.
    func step(_ name: String, _ body: () async throws -> String) async {
        do {
            passed("\(name): \(try await body())")
        } catch {
            failed("\(name): \(error)")
        }
    }

    /// Runs a step that should fail with the `expected` error, and records its outcome.
    func refusal(_ name: String, expecting expected: ExpectedRefusal, _ body: () async throws -> some Any) async {
        do {
            _ = try await body()
            failed("\(name): it succeeded, but it should have been refused")
        } catch  where expected.matches(error) {
            passed("\(name): \(error)")
        } catch {
            failed("\(name) failed, but not as expected: \(error)")
        }
    }

    private func count(failed: Bool) {
        lock.lock()
        defer { lock.unlock() }
        steps += 1
        failures += failed ? 1 : 0
    }
}

/// The refusals the flow expects.
enum ExpectedRefusal {
    /// The server answers 401 with an error body.
    case unauthorized
    /// The client refuses a purchase order above `maxPOExpense` without sending it.
    case aboveExpenseLimit

    func matches(_ error: any Error) -> Bool {
        switch self {
        case .unauthorized: (error as? APIError)?.status == 401
        case .aboveExpenseLimit: error is ExpenseLimitExceeded
        }
    }
}
