import Foundation

/// The members of a JSON body whose keys name a secret, at any depth, found without decoding the rest of it, so
/// that a redacted value is replaced and every other byte of the body stays as it was.
///
/// The walk is iterative, with an explicit stack of the open objects and arrays: no body, however deeply nested,
/// can exhaust the call stack, and the stack grows with the body, never past it.
package enum HARJSON {
    /// `body` with the value of every member, at any depth, whose key `redaction` names replaced by `"REDACTED"`,
    /// and the secret values replaced (a string's text; of an object or array, its JSON and the text of each string
    /// in it); `nil` when the body is not a JSON object or array, or names no such key.
    ///
    /// - Parameters:
    ///   - body: The body, whatever its `Content-Type` says.
    ///   - redaction: The names of the secrets.
    /// - Returns: The redacted body, still valid JSON, and the values it no longer holds.
    package static func redacting(_ body: Data, _ redaction: Redaction) -> (body: Data, secrets: [String])? {
        let bytes = [UInt8](body)
        guard let redacted = secretValues(bytes, redaction), !redacted.isEmpty else {
            return nil
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        let placeholder = Array("\"\(Redaction.placeholder)\"".utf8)
        var copied = 0
        var secrets: [String] = []
        for range in redacted {
            result += bytes[copied..<range.lowerBound]
            result += placeholder
            copied = range.upperBound
            let value = bytes[range]
            secrets.append(text(of: value))
            if value.first != UInt8(ascii: "\"") {
                secrets += stringValues(in: value)
            }
        }
        result += bytes[copied...]
        return (Data(result), secrets.filter { $0 != Redaction.placeholder })
    }

    /// What the walk expects next.
    private enum Expecting {
        /// A value: an object, an array, a string, a number or a literal.
        case value
        /// A member's key, after `{` or a `,` in an object.
        case key
        /// A `,` or the closing bracket of the innermost open container, or the end of the body.
        case delimiter
    }

    /// The byte ranges, in order, of the values of members whose key `redaction` names (a value under such a key is
    /// not searched further); `nil` when `bytes` is not one JSON object or array.
    static func secretValues(_ bytes: [UInt8], _ redaction: Redaction) -> [Range<Int>]? {
        // A UTF-8 byte order mark, which JSON parsers skip.
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var index = skippingSpace(bytes, from: start)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[") else {
            return nil
        }
        var open: [UInt8] = []  // the opening bracket of each container the walk is in
        var found: [Range<Int>] = []
        var expecting = Expecting.value
        while true {
            index = skippingSpace(bytes, from: index)
            switch expecting {
            case .value:
                guard index < bytes.count else {
                    return nil
                }
                let byte = bytes[index]
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    open.append(byte)
                    index = skippingSpace(bytes, from: index + 1)
                    let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if index < bytes.count, bytes[index] == close {
                        open.removeLast()
                        index += 1
                        expecting = .delimiter
                    } else {
                        expecting = byte == UInt8(ascii: "{") ? .key : .value
                    }
                } else {
                    guard let end = valueEnd(bytes, from: index) else {
                        return nil
                    }
                    index = end
                    expecting = .delimiter
                }
            case .key:
                guard let keyEnd = stringEnd(bytes, from: index) else {
                    return nil
                }
                let key = text(of: bytes[index..<keyEnd])
                index = skippingSpace(bytes, from: keyEnd)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    return nil
                }
                index = skippingSpace(bytes, from: index + 1)
                if redaction.redactsQueryItem(key) {
                    guard let end = valueEnd(bytes, from: index) else {
                        return nil
                    }
                    found.append(index..<end)
                    index = end
                    expecting = .delimiter
                } else {
                    expecting = .value
                }
            case .delimiter:
                guard let innermost = open.last else {
                    // The top-level value is over: only white space may follow it.
                    return index == bytes.count ? found : nil
                }
                guard index < bytes.count else {
                    return nil
                }
                let close = innermost == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if bytes[index] == UInt8(ascii: ",") {
                    index = skippingSpace(bytes, from: index + 1)
                    if index < bytes.count, bytes[index] == close {
                        // A trailing comma, which lenient parsers (Foundation's among them) accept: a body they
                        // read as JSON is redacted as JSON.
                        open.removeLast()
                        index += 1
                    } else {
                        expecting = innermost == UInt8(ascii: "{") ? .key : .value
                    }
                } else if bytes[index] == close {
                    open.removeLast()
                    index += 1
                } else {
                    return nil
                }
            }
        }
    }

    /// The decoded text of each string value (not key) in `value`, the JSON of an object or array.
    private static func stringValues(in value: ArraySlice<UInt8>) -> [String] {
        var strings: [String] = []
        var index = value.startIndex
        while index < value.endIndex {
            guard value[index] == UInt8(ascii: "\""), let end = stringEnd(value, from: index) else {
                index += 1
                continue
            }
            let after = skippingSpace(value, from: end)
            if after >= value.endIndex || value[after] != UInt8(ascii: ":") {
                strings.append(text(of: value[index..<end]))
            }
            index = end
        }
        return strings
    }

    /// A string's text, decoded; any other value's JSON as it is.
    static func text(of value: ArraySlice<UInt8>) -> String {
        guard value.first == UInt8(ascii: "\""), value.count >= 2 else {
            return String(decoding: value, as: UTF8.self)
        }
        let inner = value.dropFirst().dropLast()
        guard inner.contains(UInt8(ascii: "\\")) else {
            return String(decoding: inner, as: UTF8.self)
        }
        do {
            let decoded = try JSONSerialization.jsonObject(with: Data(value), options: .fragmentsAllowed)
            return decoded as? String ?? String(decoding: inner, as: UTF8.self)
        } catch {
            // An escape JSON does not allow: the text as written is what to look for.
            return String(decoding: inner, as: UTF8.self)
        }
    }

    private static func skippingSpace<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, from start: Bytes.Index
    ) -> Bytes.Index where Bytes.Index == Int {
        var index = start
        while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            index += 1
        }
        return index
    }

    /// The index after the closing quote of the string that starts at `start`.
    private static func stringEnd<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, from start: Bytes.Index
    ) -> Bytes.Index? where Bytes.Index == Int {
        guard start < bytes.endIndex, bytes[start] == UInt8(ascii: "\"") else {
            return nil
        }
        var index = start + 1
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index after the value that starts at `start`: a string, an object or array (to its matching bracket,
    /// counted, not recursed into), or a number or literal (to the next delimiter).
    private static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else {
            return nil
        }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(bytes, from: index) else {
                        return nil
                    }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        return index + 1
                    }
                default:
                    break
                }
                index += 1
            }
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"),
            UInt8(ascii: "n"):
            var index = start
            while index < bytes.count,
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(
                    bytes[index])
            {
                index += 1
            }
            return index
        default:
            return nil
        }
    }
}
