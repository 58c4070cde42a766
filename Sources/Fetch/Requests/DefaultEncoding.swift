import Foundation

/// How ``APIRequest/jsonBody(_:encoder:)`` encodes when given no encoder: the counterpart of ``DefaultDecoding``.
public enum DefaultEncoding {
    /// A new `JSONEncoder` that writes dates as ISO-8601 strings (`2026-11-30T08:42:12Z`, whole seconds) and object
    /// keys in sorted order, so that the same value always makes the same bytes.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
