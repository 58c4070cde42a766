import Foundation

/// Measures the seconds since it was made on the monotonic clock: for the durations every observed call reports,
/// where reading `ContinuousClock` and converting a `Duration` cost more than the rest of the event, and
/// `DispatchTime.now()` twice what `clock_gettime` costs.
package struct Stopwatch: Sendable {
    private let start = Self.now()

    package init() {}

    /// The seconds since the stopwatch was made (0 if the clock reads earlier, which a monotonic clock does not).
    package var seconds: TimeInterval {
        let now = Self.now()
        let seconds = Double(now.tv_sec &- start.tv_sec) + Double(now.tv_nsec &- start.tv_nsec) / 1e9
        return max(0, seconds)
    }

    private static func now() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now
    }
}
