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

/// The wall-clock time and the CPU time the process has used (user and system, every thread) at one moment.
struct Stamp {
    let wall: UInt64
    let cpu: Double

    static func now() -> Stamp {
        Stamp(wall: DispatchTime.now().uptimeNanoseconds, cpu: cpuMicroseconds())
    }

    /// The nanoseconds and the CPU microseconds since this stamp.
    func elapsed() -> (nanoseconds: UInt64, cpuMicroseconds: Double) {
        let end = Stamp.now()
        return (end.wall - wall, end.cpu - cpu)
    }
}

/// The CPU time the process has used, user and system, in microseconds (`getrusage`); with `children`, that of its
/// child processes that have been waited for.
func cpuMicroseconds(children: Bool = false) -> Double {
    var usage = rusage()
    #if os(Linux)
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    func microseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return microseconds(usage.ru_utime) + microseconds(usage.ru_stime)
}

/// What one round measured of two sides: each side's value (a rate, or a time per call), and the process's CPU time
/// per call while each side ran, in microseconds, when it was measured.
///
/// The CPU time is the whole process's over each side's turns, so work a side leaves behind on other threads (corelibs
/// finishing a transfer after its completion) lands partly in the other side's next turn; the sides alternate finely,
/// so each pays for the other about as often.
struct SideResults {
    var a: Double
    var b: Double
    var cpuA: Double?
    var cpuB: Double?

    init(a: Double, b: Double, cpuA: Double? = nil, cpuB: Double? = nil) {
        self.a = a
        self.b = b
        self.cpuA = cpuA
        self.cpuB = cpuB
    }
}

/// A rate (or any value) measured on one side alone, with the process's CPU time per call it took.
struct Measured {
    var value: Double
    var cpuPerCall: Double

    /// Runs `body`, which makes `calls` calls and returns its value, and measures the CPU time it takes.
    init(calls: Int, _ body: () -> Double) {
        let start = cpuMicroseconds()
        value = body()
        cpuPerCall = (cpuMicroseconds() - start) / Double(max(1, calls))
    }

    init(value: Double, cpuPerCall: Double) {
        self.value = value
        self.cpuPerCall = cpuPerCall
    }
}

extension SideResults {
    /// Two sides measured one after the other.
    init(_ a: Measured, _ b: Measured) {
        self.init(a: a.value, b: b.value, cpuA: a.cpuPerCall, cpuB: b.cpuPerCall)
    }
}

/// The medians of two sides measured alternately, and the median of their round-by-round ratios.
struct Comparison {
    let a: Double
    let b: Double
    /// The median of `a / b` over the rounds: each ratio compares two runs next to each other in time, so a burst of
    /// load from elsewhere on the machine moves both sides of it.
    let ratio: Double
    /// The median over the rounds of each side's CPU time per call, in microseconds, when it was measured.
    var cpuA: Double? = nil
    var cpuB: Double? = nil
}

/// Runs `round` (which measures both sides together) `rounds` times and compares the sides.
func paired(rounds: Int, _ round: () -> SideResults) -> Comparison {
    let results = (0..<rounds).map { _ in round() }
    let cpuA = results.compactMap(\.cpuA)
    let cpuB = results.compactMap(\.cpuB)
    return Comparison(
        a: median(results.map(\.a)), b: median(results.map(\.b)), ratio: median(results.map { $0.a / $0.b }),
        cpuA: cpuA.isEmpty ? nil : median(cpuA), cpuB: cpuB.isEmpty ? nil : median(cpuB))
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
