import Foundation

/// A `Content-Range` value (RFC 9110 §14.4): `bytes 100-199/1000`, `bytes 100-199/*` or `bytes */1000`.
///
/// The positions are read with ``WireNumber/byteCount(_:)``: digits only, no sign, no value past `Int64.max`. A
/// range whose first byte is after its last, or whose last byte is not before the complete length, is not a range.
package struct ContentRange: Equatable, Sendable {
    /// The first byte's offset, or `nil` for `*`.
    package let start: Int64?
    /// The last byte's offset (inclusive), or `nil` for `*`.
    package let end: Int64?
    /// The length of the whole resource, or `nil` for `*`.
    package let total: Int64?

    package init(start: Int64?, end: Int64?, total: Int64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    /// Reads a `Content-Range` value; `nil` when it is not a byte range, or not a consistent one.
    package init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else {
            return nil
        }
        let parts = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return nil
        }
        let range = parts[0].drop { $0 == " " }
        let length = parts[1]
        if length == "*" {
            total = nil
        } else {
            guard let total = Self.position(length) else {
                return nil
            }
            self.total = total
        }
        if range == "*" {
            // `bytes */*` says nothing.
            guard total != nil else {
                return nil
            }
            start = nil
            end = nil
        } else {
            let bounds = range.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.position(bounds[0]), let last = Self.position(bounds[1]),
                first <= last, total.map({ last < $0 }) ?? true
            else {
                return nil
            }
            start = first
            end = last
        }
    }

    /// The offset just past the bytes a `206` with this range carries, when the range starts at `bytes` (where the
    /// partial file ends), agrees with the resource's length known so far and with the response's `Content-Length`;
    /// `nil` otherwise.
    package func bodyEnd(continuing bytes: Int64, contentLength: Int64?, knownTotal: Int64?) -> Int64? {
        guard let start, let end, start == bytes else {
            return nil
        }
        if let knownTotal, let total, total != knownTotal {
            return nil
        }
        // Without a total, `end` may be `Int64.max`, and one past it does not fit.
        let (limit, overflow) = end.addingReportingOverflow(1)
        guard !overflow else {
            return nil
        }
        if let contentLength, contentLength != limit - start {
            return nil
        }
        return limit
    }

    /// A position or length: digits and nothing else.
    private static func position(_ text: Substring) -> Int64? {
        guard !text.contains(where: { $0 == " " || $0 == "\t" }) else {
            return nil
        }
        return WireNumber.byteCount(text)
    }
}
