import Foundation

/// The parts of a `multipart/form-data` body whose field names a secret, found by the body's boundary, so that a
/// redacted part's content is replaced and the body keeps its structure (delimiters, part headers, every other part).
package enum HARMultipart {
    /// `body` with the content of every part whose `Content-Disposition` name `redaction` names replaced by
    /// `REDACTED`, and, in the other parts, the members of a JSON content that name a secret; `nil` when no part
    /// names one.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - boundary: The boundary of its `Content-Type`.
    ///   - redaction: The names of the secrets.
    /// - Returns: The redacted body and the values it no longer holds (each redacted part's content as text).
    package static func redacting(
        _ body: Data, boundary: String, _ redaction: Redaction
    ) -> (body: Data, secrets: [String])? {
        guard !boundary.isEmpty else {
            return nil
        }
        let delimiter = Data("--\(boundary)".utf8)
        let headEnd = Data("\r\n\r\n".utf8)
        let bytes = Data(body)  // indices from 0
        var replacements: [(range: Range<Int>, with: Data)] = []
        var secrets: [String] = []
        var search = bytes.startIndex
        while let opening = bytes.range(of: delimiter, in: search..<bytes.endIndex) {
            let partStart = opening.upperBound
            // The part's content ends at the CR LF before the next delimiter.
            guard let next = bytes.range(of: Data("\r\n".utf8) + delimiter, in: partStart..<bytes.endIndex),
                let head = bytes.range(of: headEnd, in: partStart..<next.lowerBound)
            else {
                break
            }
            let content = head.upperBound..<next.lowerBound
            let name = fieldName(String(decoding: bytes[partStart..<head.lowerBound], as: UTF8.self))
            if let name, redaction.redactsQueryItem(name) {
                replacements.append((content, Data(Redaction.placeholder.utf8)))
                if let text = String(data: bytes[content], encoding: .utf8), text != Redaction.placeholder {
                    secrets.append(text)
                }
            } else if let json = HARJSON.redacting(bytes[content], redaction) {
                replacements.append((content, json.body))
                secrets += json.secrets
            }
            search = next.lowerBound + 2
        }
        guard !replacements.isEmpty else {
            return nil
        }
        var result = Data()
        var copied = bytes.startIndex
        for replacement in replacements {
            result += bytes[copied..<replacement.range.lowerBound]
            result += replacement.with
            copied = replacement.range.upperBound
        }
        result += bytes[copied...]
        return (result, secrets)
    }

    /// The `name` parameter of a part's `Content-Disposition` header, among the part's header lines.
    static func fieldName(_ head: String) -> String? {
        for line in head.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, HeaderName.equal(String(parts[0]), "Content-Disposition") else {
                continue
            }
            for parameter in parts[1].split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                if pair.count == 2, pair[0].lowercased() == "name" {
                    let value = pair[1]
                    guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else {
                        return value
                    }
                    return String(value.dropFirst().dropLast())
                }
            }
        }
        return nil
    }
}
