import Fetch
import Foundation

/// `Retry-After` (`RetryPolicy.retryAfter(_:now:)`): any value gives no wait or a finite wait of zero or more seconds;
/// a value of digits (with spaces or tabs around) gives exactly that many seconds, up to 2^31, as a comparison of
/// decimal strings says; a signed number gives none; an HTTP date Fetch formats gives the seconds until it.
package enum RetryAfterProperties {
    private static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// Checks the properties on `input` as a header value, and on its first 4 bytes as a delay.
    package static func check(_ input: Data) -> String? {
        let value = String(decoding: input, as: UTF8.self)
        if let wait = RetryPolicy.retryAfter(value, now: now), !(wait.isFinite && wait >= 0) {
            return "Retry-After: \(value.debugDescription) gives a wait of \(wait) s"
        }
        let digits = WireNumberProperties.Reference(
            Array(value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()))
        if digits.isDigits {
            let limit = WireNumber.maximumDeltaSeconds
            let expected = digits.isAtMost(String(limit)) ? digits.value ?? limit : limit
            guard RetryPolicy.retryAfter(value, now: now) == TimeInterval(expected) else {
                return "Retry-After: \(value.debugDescription) is not a wait of \(expected) s"
            }
        }
        for sign in ["+", "-"] where RetryPolicy.retryAfter(sign + value, now: now) != nil && digits.isDigits {
            return "Retry-After: \((sign + value).debugDescription) gives a wait"
        }
        var reader = FuzzInput(input)
        let seconds = Int(truncatingIfNeeded: reader.int64() & 0x3FFF_FFFF)
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
