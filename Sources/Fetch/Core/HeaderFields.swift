import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP header fields: an ordered list of names and values, looked up by name whatever its case.
///
/// The fields keep the order they were sent or received in, each name as it was written, and a field sent twice
/// stays two fields. A name reads the value, as HTTP combines repeated fields:
///
/// ```swift
/// let headers: HeaderFields = ["Content-Type": "application/json", "X-Amz-Date": "20260101T000000Z"]
/// let type = headers["content-type"]  // "application/json"
/// let date = headers["x-amz-date"]  // "20260101T000000Z"
/// ```
///
/// `Set-Cookie` is the one field whose values cannot be combined (an `Expires` date holds a comma): the name reads
/// its first value; ``values(for:)`` reads each field's own value, as it does for any name. A dictionary literal
/// makes fields in its own order; `HeaderFields([(name, value), …])` and ``append(_:_:)`` make repeated ones.
///
/// Two values are equal when each name (in any case) has the same values in the same order: as in HTTP, the order
/// of fields of different names does not count.
public struct HeaderFields: Sendable {
    private var storage: Storage

    /// Creates header fields from `fields`, in order, repeated names included.
    ///
    /// - Parameter fields: The names and values, for example `[("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]`.
    public init(_ fields: [(name: String, value: String)]) {
        storage = .list(fields)
    }

    /// Creates header fields from a dictionary, in the order of their names (a dictionary has none of its own).
    ///
    /// - Parameter dictionary: The names and values.
    package init(_ dictionary: [String: String]) {
        self.init(dictionary.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
    }

    /// The fields of `httpResponse`, read from Foundation only when someone asks: most responses are decoded without
    /// a look at their headers, and copying them costs more than the rest of Fetch's own work.
    package init(_ httpResponse: HTTPURLResponse) {
        storage = .foundation(FoundationFields(httpResponse))
    }

    /// The value of the field `name`, whatever its case; the values of a repeated field joined with `, `, except
    /// `Set-Cookie`'s, whose first value this is.
    ///
    /// Setting a value replaces every field of that name, in any case, with one field, where the first of them was
    /// (or last): `request.headers["Accept"] = "application/json"`. Setting `nil` removes them. ``append(_:_:)``
    /// adds a repeated field instead.
    ///
    /// - Parameter name: The field name, in any case, for example `"content-type"`.
    /// - Returns: The value, or `nil` when there is no such field.
    public subscript(name: String) -> String? {
        get {
            if case .foundation(let foundation) = storage, let value = foundation.valueBeforeConversion(named: name) {
                return value
            }
            var found: String?
            for field in fields where HeaderName.equal(field.name, name) {
                guard let previous = found else {
                    found = field.value
                    continue
                }
                if HeaderName.equal(name, "Set-Cookie") {
                    break
                }
                found = previous + ", " + field.value
            }
            return found
        }
        set {
            self = newValue.map { setting(name, to: $0) } ?? removing(name)
        }
    }

    /// Adds a field after the others, even when a field of that name is already there: the two are sent apart, in
    /// order, where the transport can (see ``URLSessionTransport`` for the one that combines them).
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value.
    public mutating func append(_ name: String, _ value: String) {
        storage = .list(fields + [(name: name, value: value)])
    }

    /// Each value of the field `name`, whatever its case, in the order they came: one per field.
    ///
    /// - Parameter name: The field name, in any case.
    /// - Returns: The values, empty when there is no such field.
    public func values(for name: String) -> [String] {
        fields.compactMap { HeaderName.equal($0.name, name) ? $0.value : nil }
    }

    /// The fields, in order.
    package var fields: [(name: String, value: String)] {
        switch storage {
        case .list(let fields): fields
        case .foundation(let foundation): foundation.fields
        }
    }

    /// The fields as a dictionary, for Foundation's types: the values of a name repeated in one spelling joined
    /// with `, `, as Foundation itself joins them.
    package var dictionary: [String: String] {
        var dictionary: [String: String] = [:]
        dictionary.reserveCapacity(count)
        for (name, value) in fields {
            if let existing = dictionary.updateValue(value, forKey: name) {
                dictionary[name] = existing + ", " + value
            }
        }
        return dictionary
    }

    /// These fields with `value` as the only field `name`, where the first field of that name was (or last).
    package func setting(_ name: String, to value: String) -> HeaderFields {
        var fields = fields
        let index = fields.firstIndex { HeaderName.equal($0.name, name) }
        fields.removeAll { HeaderName.equal($0.name, name) }
        fields.insert((name, value), at: Swift.min(index ?? fields.count, fields.count))
        return HeaderFields(fields)
    }

    /// These fields without any field named `name`.
    package func removing(_ name: String) -> HeaderFields {
        HeaderFields(fields.filter { !HeaderName.equal($0.name, name) })
    }

    /// The fields as `URLRequest` holds them, one value per name: the values of a repeated name (in any case) joined
    /// as RFC 9110 §5.3 combines them, with `, `, and `Cookie`'s with `; ` (RFC 6265 §5.4), under the name's first
    /// spelling, in the order of each name's first field.
    package var combined: [(name: String, value: String)] {
        var combined: [(name: String, value: String)] = []
        combined.reserveCapacity(count)
        for (name, value) in fields {
            guard let index = combined.firstIndex(where: { HeaderName.equal($0.name, name) }) else {
                combined.append((name, value))
                continue
            }
            let separator = HeaderName.equal(name, "Cookie") ? "; " : ", "
            combined[index].value += separator + value
        }
        return combined
    }

    /// Whether there is a field named `name`, whatever its case.
    package func contains(_ name: String) -> Bool {
        fields.contains { HeaderName.equal($0.name, name) }
    }

    private enum Storage: Sendable {
        case list([(name: String, value: String)])
        case foundation(FoundationFields)
    }
}

// MARK: - RandomAccessCollection

extension HeaderFields: RandomAccessCollection {
    /// The position of the first field: 0.
    public var startIndex: Int { 0 }

    /// The position after the last field.
    public var endIndex: Int { fields.count }

    /// The field at `position`: its name as written, and its value.
    public subscript(position: Int) -> (name: String, value: String) { fields[position] }
}

// MARK: - ExpressibleByDictionaryLiteral

extension HeaderFields: ExpressibleByDictionaryLiteral {
    /// Creates header fields from a dictionary literal, in the literal's order: `["Accept": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }
}

// MARK: - Hashable

extension HeaderFields: Hashable {
    /// Whether each name, in any case, has the same values in the same order in both.
    public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.count == rhs.count && lhs.valuesByName == rhs.valuesByName
    }

    /// Hashes the values of each name, names ignoring case.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(valuesByName)
    }

    /// The values of each name, lowercased (RFC 9110 §5.3: only the order of fields of one name counts).
    private var valuesByName: [String: [String]] {
        fields.reduce(into: [:]) { $0[$1.name.lowercased(), default: []].append($1.value) }
    }
}

// MARK: - CustomStringConvertible

extension HeaderFields: CustomStringConvertible {
    /// The fields as `Name: value` lines.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

/// The fields of an `HTTPURLResponse`, converted on first use.
///
/// `@unchecked Sendable`: `HTTPURLResponse` is immutable once made, and the converted list is behind `converted`'s
/// lock.
private final class FoundationFields: @unchecked Sendable {
    private let httpResponse: HTTPURLResponse
    private let converted = Locked<[(name: String, value: String)]?>(nil)

    init(_ httpResponse: HTTPURLResponse) {
        self.httpResponse = httpResponse
    }

    /// Foundation's own case-insensitive lookup, while the fields are not converted (cheaper than converting).
    func valueBeforeConversion(named name: String) -> String? {
        guard converted.withLock({ $0 == nil }) else {
            return nil
        }
        let value = httpResponse.value(forHTTPHeaderField: name)
        // Foundation joined the `Set-Cookie` fields into one value: the first cookie is the first field's.
        return HeaderName.equal(name, "Set-Cookie") ? value.flatMap { SetCookieLines.split($0).first } : value
    }

    var fields: [(name: String, value: String)] {
        converted.withLock { converted in
            if let converted {
                return converted
            }
            var fields: [(name: String, value: String)] = []
            let all = httpResponse.allHeaderFields
            fields.reserveCapacity(all.count)
            for (name, value) in all {
                // `base` reads the String inside the AnyHashable without a dynamic cast: half the cost per field.
                guard let name = name.base as? String else {
                    continue
                }
                fields.append((name, value as? String ?? String(describing: value)))
            }
            // Foundation's dictionary has no order: sorted, so that the same response reads the same every time.
            fields.sort { $0.name < $1.name }
            // Foundation joined the `Set-Cookie` fields with `, `: apart again, one per cookie (`SetCookieLines`).
            if let index = fields.firstIndex(where: { HeaderName.equal($0.name, "Set-Cookie") }) {
                let name = fields[index].name
                fields.replaceSubrange(
                    index...index, with: SetCookieLines.split(fields[index].value).map { (name, $0) })
            }
            converted = fields
            return fields
        }
    }
}

/// Header field names compare case-insensitively in ASCII (RFC 9110 §5.1), whatever the user's locale.
package enum HeaderName {
    /// Whether two field names are the same name.
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else {
            return false
        }
        if lhs == rhs {
            return true  // the same spelling, the usual case: no byte is lowercased
        }
        // Over the contiguous bytes: a generic walk of two `UTF8View`s costs about 80 instructions a byte.
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                for index in left.indices where lowercase(left[index]) != lowercase(right[index]) {
                    return false
                }
                return true
            }
        }
    }

    /// Whether `byte` is an RFC 9110 §5.6.2 tchar: a letter, a digit, or one of ``!#$%&'*+-.^_`|~``, the bytes of
    /// field names, methods and extension parameters.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        // The tchars as bits: bytes 0-63 in the first mask, 64-127 in the second.
        let low: UInt64 = 0x03FF_6CFA_0000_0000
        let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        return byte < 128 && (byte < 64 ? low : high) & (1 << UInt64(byte & 63)) != 0
    }

    /// Whether `value` holds CR, LF or NUL, which would end a field line early (scanned over its contiguous bytes:
    /// this runs for every field of every request).
    package static func hasLineBreakOrNUL(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in bytes.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// Whether `text` holds a line break: any scalar that makes a `Character` a newline (LF, VT, FF, CR, NEL, LINE
    /// and PARAGRAPH SEPARATOR). A scan of bytes while they are ASCII, then of scalars, never of characters, which
    /// would cost grapheme breaking: it runs for every field of every libcurl request.
    package static func hasLineBreak(_ text: String) -> Bool {
        var text = text
        let ascii = text.withUTF8 { bytes -> Bool? in
            for byte in bytes {
                if byte >= 0x80 {
                    return nil  // the line breaks beyond ASCII take more than a byte: the scalars decide
                }
                if (0x0A...0x0D).contains(byte) {
                    return true
                }
            }
            return false
        }
        if let ascii {
            return ascii
        }
        return text.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
            default: false
            }
        }
    }
}
