import Fetch
import Foundation

/// `Retry-After` (`RetryPolicy.retryAfter(_:now:)`): any value gives no wait or a finite wait of zero or more seconds;
/// delay-seconds give exactly that many; an HTTP date Fetch formats gives the seconds until it.
package enum RetryAfterProperties {
    private static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// Checks the properties on `input` as a header value, and on its first 4 bytes as a delay.
    package static func check(_ input: Data) -> String? {
        let value = String(decoding: input, as: UTF8.self)
        if let wait = RetryPolicy.retryAfter(value, now: now), !(wait.isFinite && wait >= 0) {
            return "Retry-After: \(value.debugDescription) gives a wait of \(wait) s"
        }
        var reader = FuzzInput(input)
        let seconds = Int(reader.int64() & 0x3FFF_FFFF)
        if let wait = RetryPolicy.retryAfter(" \(seconds) ", now: now), wait != TimeInterval(seconds) {
            return "Retry-After: \(seconds) gives a wait of \(wait) s"
        }
        let date = HTTPDate.string(from: now.addingTimeInterval(TimeInterval(seconds)))
        guard RetryPolicy.retryAfter(date, now: now) == TimeInterval(seconds) else {
            let wait = RetryPolicy.retryAfter(date, now: now).map { "\($0) s" } ?? "no wait"
            return "Retry-After: \(date) at \(now) (\(seconds) s later) gives \(wait)"
        }
        return nil
    }
}
