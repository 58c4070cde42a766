import Foundation

/// Monotonic time in nanoseconds.
func now() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// The median of some values (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else {
        return .nan
    }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The medians of two sides measured alternately, and the median of their round-by-round ratios.
struct Comparison {
    let a: Double
    let b: Double
    /// The median of `a / b` over the rounds: each ratio compares two runs next to each other in time, so a burst of
    /// load from elsewhere on the machine moves both sides of it.
    let ratio: Double
}

/// Runs `round` (which measures both sides together) `rounds` times and compares the sides.
func paired(rounds: Int, _ round: () -> (a: Double, b: Double)) -> Comparison {
    let results = (0..<rounds).map { _ in round() }
    return Comparison(
        a: median(results.map(\.a)), b: median(results.map(\.b)), ratio: median(results.map { $0.a / $0.b }))
}

/// Runs `body` on a Task and blocks the calling (non-pool) thread until it finishes.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        result.value = await body()
        done.signal()
    }
    done.wait()
    // The semaphore orders the write before this read.
    return result.value!
}

/// Carries a value out of a Task to a thread that waits on a semaphore.
final class ResultBox<T>: @unchecked Sendable {
    // @unchecked Sendable: written once before the semaphore is signalled, read once after it is waited on.
    var value: T?
}
