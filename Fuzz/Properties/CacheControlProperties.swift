import Fetch
import Foundation

/// `Cache-Control` (`CacheControl`): any value is read without a crash, and a `max-age` is never negative, infinite or
/// NaN (an invalid one makes the response stale, RFC 9111 §4.2.1); `max-age=<digits>` is that many seconds, at most
/// 2^31 (RFC 9111 §1.2.2).
package enum CacheControlProperties {
    /// Checks the properties on `input` as a header value, and on `max-age=<digits from the input>`.
    package static func check(_ input: Data) -> String? {
        let value = String(decoding: input, as: UTF8.self)
        if let maxAge = CacheControl(value).maxAge, !(maxAge.isFinite && maxAge >= 0 && maxAge <= 2_147_483_648) {
            return "Cache-Control: \(value.debugDescription) gives max-age \(maxAge)"
        }
        let digits = String(decoding: input.filter { (0x30...0x39).contains($0) }.prefix(40), as: UTF8.self)
        guard !digits.isEmpty else {
            return nil
        }
        let expected = min(Double(digits) ?? .infinity, 2_147_483_648)
        let maxAge = CacheControl("no-cache, MAX-AGE = \(digits)").maxAge
        guard maxAge == expected else {
            return "Cache-Control: max-age=\(digits) gives max-age \(maxAge.map { "\($0)" } ?? "nil"), not \(expected)"
        }
        return nil
    }
}
