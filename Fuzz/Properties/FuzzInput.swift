import Foundation

/// Reads structured values off the front of a fuzzer's input, so that one byte string can describe several
/// arguments (a header's name and value, the parts of a form). Reading past the end gives zeros and empty strings:
/// every input is a valid description.
package struct FuzzInput {
    private var bytes: Data.SubSequence

    /// Reads `data` from its first byte.
    package init(_ data: Data) {
        bytes = data[...]
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { bytes.isEmpty }

    /// The next byte, or 0 at the end.
    package mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    /// The next `count` bytes, or fewer at the end.
    package mutating func bytes(_ count: Int) -> Data {
        let taken = Data(bytes.prefix(count))
        bytes = bytes.dropFirst(count)
        return taken
    }

    /// A length byte and then that many bytes, at most `limit`.
    package mutating func chunk(upTo limit: Int = 255) -> Data {
        bytes(min(Int(byte()), limit))
    }

    /// A ``chunk(upTo:)`` decoded as UTF-8, with invalid sequences replaced as `String(decoding:as:)` does.
    package mutating func string(upTo limit: Int = 255) -> String {
        String(decoding: chunk(upTo: limit), as: UTF8.self)
    }

    /// The bytes that are left.
    package mutating func rest() -> Data {
        defer { bytes = bytes[bytes.endIndex...] }
        return Data(bytes)
    }

    /// The next 8 bytes as a little-endian integer (zeros past the end).
    package mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) {
            value |= UInt64(byte()) << UInt64(shift)
        }
        return Int64(bitPattern: value)
    }
}
