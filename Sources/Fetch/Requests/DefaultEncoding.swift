import Foundation

/// How ``APIRequest/jsonBody(_:encoder:)`` encodes when given no encoder: the counterpart of ``DefaultDecoding``.
public enum DefaultEncoding {
    /// A new `JSONEncoder` that writes dates as ISO-8601 strings in UTC and object keys in sorted order, so that the
    /// same value always makes the same bytes.
    ///
    /// A date is written as ``DefaultDecoding/decoder`` reads it back: `2026-11-30T08:42:12Z` in whole seconds,
    /// `2026-11-30T08:42:12.345Z` with milliseconds, and `2026-11-30T08:42:12.345678Z` when it has a finer fraction
    /// (rounded to the microsecond), so that a date decoded from a server goes back as it came.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(from: date))
        }
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
