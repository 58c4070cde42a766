import Dispatch
import Foundation

/// Measures the seconds since it was made on the monotonic clock: for the durations every observed call reports,
/// where reading `ContinuousClock` and converting a `Duration` cost more than the rest of the event. On Linux it
/// reads `clock_gettime`, which costs half of what `DispatchTime.now()` adds around it there.
package struct Stopwatch: Sendable {
    private let start = Self.nanoseconds()

    package init() {}

    /// The seconds since the stopwatch was made (0 if the clock reads earlier, which a monotonic clock does not).
    package var seconds: TimeInterval {
        let now = Self.nanoseconds()
        return now > start ? Double(now - start) / 1e9 : 0
    }

    /// The monotonic clock, in nanoseconds.
    private static func nanoseconds() -> UInt64 {
        #if canImport(Glibc)
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            // Never negative on a monotonic clock; wrapping rather than trapping if a kernel ever said otherwise.
            return UInt64(truncatingIfNeeded: now.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: now.tv_nsec)
        #else
            return DispatchTime.now().uptimeNanoseconds
        #endif
    }
}
