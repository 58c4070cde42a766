import Fetch
import Foundation

/// HAR redaction by structure (`HARJSON`, `HARMultipart`): a body that parses as JSON still parses once redacted,
/// and holds `REDACTED` under every key that names a secret, at any depth, and nothing else there; a multipart body
/// keeps every delimiter it had.
package enum HARRedactionProperties {
    /// Checks the properties on `input` as a JSON body and as a multipart body.
    package static func check(_ input: Data) -> String? {
        checkJSON(input) ?? checkMultipart(input)
    }

    private static func checkJSON(_ input: Data) -> String? {
        let redacted = HARJSON.redacting(input, .default)
        guard !input.contains(0), let parsed = parse(input) else {
            // Not JSON (or UTF-16 or UTF-32, which the walk does not read): only that the walk ended matters.
            return nil
        }
        guard let redacted else {
            return secretKey(in: parsed).map { "\(text(input)): the key \($0.debugDescription) is not redacted" }
        }
        guard let output = parse(redacted.body) else {
            return "\(text(input)) is JSON, but its redaction \(text(redacted.body)) is not"
        }
        return secretKey(in: output).map {
            "\(text(input)): the key \($0.debugDescription) is not redacted in \(text(redacted.body))"
        }
    }

    private static func checkMultipart(_ input: Data) -> String? {
        let boundary = "B"
        guard let redacted = HARMultipart.redacting(input, boundary: boundary, .default) else {
            return nil
        }
        let delimiter = Data("\r\n--\(boundary)".utf8)
        let before = count(delimiter, in: input)
        let after = count(delimiter, in: redacted.body)
        return before == after
            ? nil : "\(text(input)): \(before) delimiters became \(after) in \(text(redacted.body))"
    }

    /// The JSON object or array in `data`; `nil` when it is not one.
    private static func parse(_ data: Data) -> Any? {
        do {
            let value = try JSONSerialization.jsonObject(with: data)
            return value is [String: Any] || value is [Any] ? value : nil
        } catch {
            return nil  // not JSON: there is nothing to check
        }
    }

    /// A key of `value`, at any depth, that names a secret and whose value is not `REDACTED`; walked without
    /// recursion.
    private static func secretKey(in value: Any) -> String? {
        var pending = [value]
        while let next = pending.popLast() {
            if let object = next as? [String: Any] {
                for (key, member) in object {
                    if Redaction.default.redactsQueryItem(key) {
                        guard member as? String == "REDACTED" else {
                            return key
                        }
                    } else {
                        pending.append(member)
                    }
                }
            } else if let array = next as? [Any] {
                pending += array
            }
        }
        return nil
    }

    private static func count(_ needle: Data, in data: Data) -> Int {
        var found = 0
        var start = data.startIndex
        while let range = data.range(of: needle, in: start..<data.endIndex) {
            found += 1
            start = range.upperBound
        }
        return found
    }

    private static func text(_ data: Data) -> String {
        String(decoding: data.prefix(200), as: UTF8.self).debugDescription
    }
}
