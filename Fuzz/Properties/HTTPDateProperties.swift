import Fetch
import Foundation

/// HTTP dates (`HTTPDate`): any text parses or is refused without a crash; a date Fetch formats parses back to the
/// same instant, to the second; and a date Fetch parsed formats and parses back to itself.
package enum HTTPDateProperties {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in seconds since 1970: the dates a four-digit year can name
    /// (in Foundation's Gregorian calendar, which is Julian before 1582).
    private static let earliest: Int64 = -62_135_769_600
    private static let latest: Int64 = 253_402_300_799

    /// Checks both properties on `input`: as text, and as a time (its first 9 bytes).
    package static func check(_ input: Data) -> String? {
        let text = String(decoding: input, as: UTF8.self)
        if let parsed = HTTPDate.date(from: text) {
            let formatted = HTTPDate.string(from: parsed)
            guard let reparsed = HTTPDate.date(from: formatted) else {
                return "\(text.debugDescription) parses to \(parsed), which formats as \(formatted.debugDescription),"
                    + " which does not parse"
            }
            guard wholeSeconds(reparsed) == wholeSeconds(parsed) else {
                return "\(text.debugDescription) parses to \(parsed), which formats as \(formatted.debugDescription),"
                    + " which parses to \(reparsed)"
            }
        }
        var reader = FuzzInput(input)
        let span = UInt64(latest - earliest) + 1
        let seconds = earliest + Int64(UInt64(bitPattern: reader.int64()) % span)
        let date = Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(reader.byte()) / 256)
        let formatted = HTTPDate.string(from: date)
        guard let parsed = HTTPDate.date(from: formatted) else {
            return "\(date) (\(seconds) s since 1970) formats as \(formatted.debugDescription), which does not parse"
        }
        guard wholeSeconds(parsed) == seconds else {
            return "\(date) (\(seconds) s since 1970) formats as \(formatted.debugDescription), which parses to"
                + " \(parsed) (\(wholeSeconds(parsed)) s)"
        }
        return nil
    }

    private static func wholeSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return seconds.isFinite && abs(seconds) < 1e18 ? Int64(seconds) : .min
    }
}
