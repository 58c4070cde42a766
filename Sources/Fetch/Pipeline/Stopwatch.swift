import Dispatch
import Foundation

/// Measures the seconds since it was made on the monotonic clock: for the durations every observed call reports,
/// where reading `ContinuousClock` and converting a `Duration` cost more than the rest of the event.
package struct Stopwatch: Sendable {
    private let start = DispatchTime.now().uptimeNanoseconds

    package init() {}

    /// The seconds since the stopwatch was made (0 if the clock reads earlier, which a monotonic clock does not).
    package var seconds: TimeInterval {
        let now = DispatchTime.now().uptimeNanoseconds
        return now > start ? Double(now - start) / 1e9 : 0
    }
}
