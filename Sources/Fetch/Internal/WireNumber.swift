import Foundation

/// The one place where a number that came from outside (a server's status line or header, an event stream, a disk
/// cache file, a HAR file) becomes a Swift number.
///
/// Each grammar has one strict parser: ASCII digits only where the RFC says digits, no sign, no exponent, no
/// `inf` or `nan`, checked arithmetic, and a documented maximum. A value outside its grammar is `nil`, so that the
/// caller does what its RFC says with an invalid field (ignore it, or treat it as stale); nothing here can trap.
/// Conversions the other way, from a `Double` computed from such values to an `Int`, go through
/// ``clampedInteger(_:in:)``, never through `Int(_:)`.
package enum WireNumber {
    /// The largest delta-seconds value Fetch keeps: 2^31, which RFC 9111 §1.2.2 tells a cache to use for any
    /// larger value.
    package static let maximumDeltaSeconds = 2_147_483_648

    /// A run of ASCII digits as an integer no larger than `maximum`: `nil` when `bytes` is empty, holds anything but
    /// a digit, or is larger than `maximum` (checked as it is read, so no length overflows).
    package static func digits<Bytes: Collection>(_ bytes: Bytes, maximum: Int = .max) -> Int?
    where Bytes.Element == UInt8 {
        guard !bytes.isEmpty else {
            return nil
        }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else {
                return nil
            }
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(Int(byte &- 0x30))
            guard !overflowShift, !overflowAdd, sum <= maximum else {
                return nil
            }
            value = sum
        }
        return value
    }

    /// A run of ASCII digits as an integer, saturated at `maximum` instead of rejected: for the grammars whose RFC
    /// says that a larger value means the largest one (delta-seconds). `nil` when `bytes` is empty or holds anything
    /// but a digit.
    package static func saturatingDigits<Bytes: Collection>(_ bytes: Bytes, maximum: Int) -> Int?
    where Bytes.Element == UInt8 {
        guard !bytes.isEmpty else {
            return nil
        }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else {
                return nil
            }
            if value < maximum {
                let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowAdd) = shifted.addingReportingOverflow(Int(byte &- 0x30))
                value = overflowShift || overflowAdd ? maximum : min(sum, maximum)
            }
        }
        return value
    }

    /// An HTTP status code (RFC 9110 §15): exactly three digits, 100 to 599.
    package static func statusCode<Bytes: Collection>(_ bytes: Bytes) -> Int? where Bytes.Element == UInt8 {
        guard bytes.count == 3, let code = digits(bytes), (100...599).contains(code) else {
            return nil
        }
        return code
    }

    /// A delta-seconds value (RFC 9111 §1.2.2: `Age`, `max-age` and the other cache directives' arguments, the
    /// seconds form of `Retry-After`): digits only, surrounding spaces and tabs allowed, saturated at
    /// ``maximumDeltaSeconds``. `nil` for anything else (`-1`, `1e300`, `inf`, `0x10`, empty).
    package static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        saturatingDigits(trimmed(Substring(text).utf8), maximum: maximumDeltaSeconds)
    }

    /// A byte count or offset (`Content-Length`, the positions of `Content-Range` and `Range`): digits only,
    /// surrounding spaces and tabs allowed, no larger than `Int64.max`. `nil` for anything else, a value that does
    /// not fit included: a length that cannot be represented is not a length.
    package static func byteCount(_ text: some StringProtocol) -> Int64? {
        digits(trimmed(Substring(text).utf8)).map(Int64.init)
    }

    /// A `Content-Length` field value as a response carries it, repeated fields joined with `, `: the length when
    /// every member of the list is the same valid ``byteCount(_:)`` (RFC 9110 §8.6 allows `5, 5`), `nil` otherwise
    /// (`2, 5`, a value past `Int64.max`, a sign, an empty member), which RFC 9112 §6.3 makes an unrecoverable error.
    package static func contentLength(_ value: some StringProtocol) -> Int64? {
        guard value.utf8.contains(UInt8(ascii: ",")) else {
            return byteCount(value)  // one member, the usual field: no list to split
        }
        var length: Int64?
        for member in value.split(separator: ",", omittingEmptySubsequences: false) {
            guard let count = byteCount(member), length == nil || length == count else {
                return nil
            }
            length = count
        }
        return length
    }

    /// The same, for a `String`: read over its contiguous bytes when it is one member, as every response head's
    /// `Content-Length` is.
    package static func contentLength(_ value: String) -> Int64? {
        var contiguous = value
        let single: Int64?? = contiguous.withUTF8 { bytes in
            bytes.contains(UInt8(ascii: ",")) ? nil : .some(digits(trimmed(bytes)).map(Int64.init))
        }
        return single ?? contentLength(Substring(value))
    }

    /// `value` as an integer within `range`: rounded toward zero, a value beyond either end (infinities included)
    /// clamped to it, and NaN the lower end. The conversion for a number computed from outside input, where
    /// `Int(_:)` would trap.
    package static func clampedInteger(_ value: Double, in range: ClosedRange<Int> = Int.min...Int.max) -> Int {
        guard !value.isNaN else {
            return range.lowerBound
        }
        // Double(Int.max) rounds up to 2^63, which is not an Int: compare before converting.
        if value >= Double(range.upperBound) {
            return range.upperBound
        }
        if value <= Double(range.lowerBound) {
            return range.lowerBound
        }
        return Int(value.rounded(.towardZero))
    }

    /// `bytes` without spaces and tabs (RFC 9110's OWS) at either end.
    private static func trimmed<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Bytes.SubSequence
    where Bytes.Element == UInt8 {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }
}
