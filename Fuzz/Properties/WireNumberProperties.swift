import Fetch
import Foundation

/// Every number parser of `WireNumber`: any bytes give `nil` or a value within the parser's documented range, never a
/// crash; on a run of digits each agrees with a reference that compares decimal strings of any length (no integer
/// arithmetic), and the value written back with `String(_:)` is the digits without their leading zeros.
package enum WireNumberProperties {
    /// Checks every parser on `input`: its first 8 bytes are a maximum (and a `Double` for `clampedInteger`), the
    /// rest the text.
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let bits = reader.int64()
        let maximum = Int(truncatingIfNeeded: bits) & Int.max
        let bounds = (Int(truncatingIfNeeded: reader.int64()), Int(truncatingIfNeeded: reader.int64()))
        let text = reader.rest()
        let bytes = Array(text)
        let reference = Reference(bytes)

        if let failure = checkDigits(bytes, reference, maximum: maximum) {
            return "\(input.debugDescription): \(failure)"
        }
        let status = WireNumber.statusCode(bytes)
        let expectedStatus =
            bytes.count == 3 && reference.isDigits && reference.isAtMost("599")
            && !reference.isAtMost("99")
        guard (status != nil) == expectedStatus, status.map({ (100...599).contains($0) }) ?? true else {
            return "\(input.debugDescription): statusCode gives \(String(describing: status))"
        }

        let string = String(decoding: text, as: UTF8.self)
        let trimmed = Reference(Array(trimmedOWS(string.utf8)))
        let seconds = WireNumber.deltaSeconds(string)
        let expectedSeconds =
            trimmed.isDigits
            ? (trimmed.isAtMost(String(WireNumber.maximumDeltaSeconds))
                ? trimmed.value : WireNumber.maximumDeltaSeconds)
            : nil
        guard seconds == expectedSeconds, seconds.map({ (0...WireNumber.maximumDeltaSeconds).contains($0) }) ?? true
        else {
            return "\(input.debugDescription): deltaSeconds gives \(String(describing: seconds))"
        }
        let count = WireNumber.byteCount(string)
        let expectedCount =
            trimmed.isDigits && trimmed.isAtMost(String(Int64.max)) ? trimmed.value.map(Int64.init) : nil
        guard count == expectedCount, (count ?? 0) >= 0 else {
            return "\(input.debugDescription): byteCount gives \(String(describing: count))"
        }
        return checkClamping(Double(bitPattern: UInt64(bitPattern: bits)), bounds: bounds)
    }

    private static func checkDigits(_ bytes: [UInt8], _ reference: Reference, maximum: Int) -> String? {
        let value = WireNumber.digits(bytes)
        guard value == (reference.isDigits && reference.isAtMost(String(Int.max)) ? reference.value : nil) else {
            return "digits gives \(String(describing: value))"
        }
        if let value, String(value) != reference.canonical {
            return "digits gives \(value), which is not \(reference.canonical)"
        }
        let bounded = WireNumber.digits(bytes, maximum: maximum)
        guard bounded == (reference.isDigits && reference.isAtMost(String(maximum)) ? reference.value : nil) else {
            return "digits(maximum: \(maximum)) gives \(String(describing: bounded))"
        }
        let saturated = WireNumber.saturatingDigits(bytes, maximum: maximum)
        let expected = reference.isDigits ? (reference.isAtMost(String(maximum)) ? reference.value : maximum) : nil
        guard saturated == expected, (saturated ?? 0) <= maximum else {
            return "saturatingDigits(maximum: \(maximum)) gives \(String(describing: saturated))"
        }
        return nil
    }

    /// `clampedInteger` stays in its range, and is the value rounded toward zero where that is exact.
    private static func checkClamping(_ value: Double, bounds: (Int, Int)) -> String? {
        let range = min(bounds.0, bounds.1)...max(bounds.0, bounds.1)
        for range in [range, Int.min...Int.max] {
            let clamped = WireNumber.clampedInteger(value, in: range)
            guard range.contains(clamped) else {
                return "clampedInteger(\(value), in: \(range)) gives \(clamped)"
            }
            // Below 2^53 a Double is an exact integer once rounded, so Int(exactly:) is an independent reference.
            if value.magnitude < 0x1p53, let exact = Int(exactly: value.rounded(.towardZero)), range.contains(exact),
                clamped != exact
            {
                return "clampedInteger(\(value), in: \(range)) gives \(clamped), not \(exact)"
            }
        }
        return nil
    }

    /// `bytes` without spaces and tabs at either end.
    private static func trimmedOWS(_ bytes: String.UTF8View) -> ArraySlice<UInt8> {
        let array = Array(bytes)
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = array.firstIndex(where: { !isSpace($0) }), let last = array.lastIndex(where: { !isSpace($0) })
        else {
            return []
        }
        return array[first...last]
    }

    /// A run of digits read as a decimal string of any length, compared as strings.
    struct Reference {
        /// Whether the bytes are one or more ASCII digits.
        let isDigits: Bool
        /// The digits without leading zeros (`0` for zero), or empty.
        let canonical: String

        init(_ bytes: [UInt8]) {
            isDigits = !bytes.isEmpty && bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            guard isDigits else {
                canonical = ""
                return
            }
            let significant = bytes.drop { $0 == 0x30 }
            canonical = significant.isEmpty ? "0" : String(decoding: significant, as: UTF8.self)
        }

        /// Whether the number is at most `bound`, a canonical decimal string.
        func isAtMost(_ bound: String) -> Bool {
            canonical.count != bound.count ? canonical.count < bound.count : canonical <= bound
        }

        /// The number, when it fits in an `Int` (through the standard library's parser of a canonical string).
        var value: Int? {
            isDigits ? Int(canonical) : nil
        }
    }
}
