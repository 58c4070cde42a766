import Foundation

extension HAR {
    /// The HAR versions Fetch reads. It writes 1.2.
    package static let readableVersions: Set<String> = ["1.1", "1.2"]

    /// Reads an archive from a file, checking every field HAR 1.2 requires.
    ///
    /// - Parameter file: The file.
    /// - Throws: ``HARError`` naming the file and the JSON path of the first problem.
    package init(contentsOf file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw HARError(file: file, path: "", reason: "cannot be read: \(ErrorText.describe(error))")
        }
        do {
            try self.init(data: data)
        } catch let error as HARError {
            throw error.naming(file)
        }
    }

    /// Reads an archive from JSON, checking every field HAR 1.2 requires, and that bodies in base64 are base64.
    ///
    /// - Parameter data: The JSON text.
    /// - Throws: ``HARError`` naming the JSON path of the first problem, such as
    ///   `log.entries[3].response.status`.
    package init(data: Data) throws {
        guard !data.isEmpty else {
            throw HARError(file: nil, path: "", reason: "is empty, not a HAR archive")
        }
        do {
            self = try JSONDecoder().decode(HAR.self, from: data)
        } catch let error as DecodingError {
            throw HARError(decoding: error, of: data)
        }
        try validate()
    }

    /// The archive as JSON text: indented, keys sorted, slashes not escaped, so that a person and a diff can read
    /// it.
    ///
    /// - Returns: The JSON.
    /// - Throws: `EncodingError` for a number that JSON cannot hold (infinity or NaN in a timing).
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Checks what the types alone cannot: the version, and that base64 bodies decode.
    private func validate() throws {
        guard Self.readableVersions.contains(log.version) else {
            throw HARError(
                file: nil, path: "log.version",
                reason: "\(log.version.debugDescription) is not a HAR version Fetch reads (1.1 or 1.2)")
        }
        for (index, entry) in log.entries.enumerated() {
            let path = "log.entries[\(index)]"
            if let postData = entry.request.postData {
                _ = try postData.bytes(at: "\(path).request.postData")
            }
            _ = try entry.response.content.bytes(at: "\(path).response.content")
        }
    }
}

extension HAR.PostData {
    /// The body's bytes: ``text`` as UTF-8, or decoded from base64 when ``encoding`` says so.
    ///
    /// - Parameter path: Where this object is, for the error.
    /// - Returns: The bytes; empty when there is no text.
    /// - Throws: ``HARError`` when the encoding is unknown or the text is not base64.
    package func bytes(at path: String) throws -> Data {
        try HARBody.bytes(text: text, encoding: encoding, at: path, encodingKey: "_encoding")
    }
}

extension HAR.Content {
    /// The body's bytes: ``text`` as UTF-8, or decoded from base64 when ``encoding`` says so.
    ///
    /// - Parameter path: Where this object is, for the error.
    /// - Returns: The bytes; empty when there is no text.
    /// - Throws: ``HARError`` when the encoding is unknown or the text is not base64.
    package func bytes(at path: String) throws -> Data {
        try HARBody.bytes(text: text, encoding: encoding, at: path, encodingKey: "encoding")
    }
}

/// How bodies are stored in HAR: as text, or as base64 text.
enum HARBody {
    /// The bytes of a stored body.
    static func bytes(text: String?, encoding: String?, at path: String, encodingKey: String) throws -> Data {
        guard let text else {
            return Data()
        }
        switch encoding {
        case nil:
            return Data(text.utf8)
        case "base64":
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw HARError(file: nil, path: "\(path).text", reason: "is not base64, but \(encodingKey) says so")
            }
            return data
        case let other?:
            throw HARError(
                file: nil, path: "\(path).\(encodingKey)",
                reason: "\(other.debugDescription) is not an encoding Fetch reads (only \"base64\")")
        }
    }
}

extension HARError {
    /// The error for what `JSONDecoder` found wrong in `data`, named by its JSON path.
    init(decoding error: DecodingError, of data: Data) {
        switch error {
        case .keyNotFound(let key, let context):
            let path = ErrorText.path(context.codingPath + [key])
            self.init(file: nil, path: path, reason: "missing (HAR 1.2 requires it)")
        case .valueNotFound(let type, let context):
            self.init(
                file: nil, path: ErrorText.path(context.codingPath),
                reason: "is null, but HAR 1.2 requires \(Self.kind(of: type))")
        case .typeMismatch(let type, let context):
            let path = context.codingPath.isEmpty ? "" : ErrorText.path(context.codingPath)
            let reason =
                path.isEmpty
                ? "is not a HAR archive: its top level must be an object with a \"log\" (\(context.debugDescription))"
                : "must be \(Self.kind(of: type)) (\(context.debugDescription))"
            self.init(file: nil, path: path, reason: reason)
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            let detail = Self.syntaxError(in: data) ?? context.debugDescription
            let truncated = detail.localizedCaseInsensitiveContains("end of file") ? "; it looks truncated" : ""
            self.init(file: nil, path: "", reason: "is not valid JSON\(truncated): \(detail)")
        case .dataCorrupted(let context):
            self.init(file: nil, path: ErrorText.path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            self.init(file: nil, path: "", reason: ErrorText.describe(error))
        }
    }

    /// Where the JSON syntax of `data` is wrong, as `JSONSerialization` says it: `Unexpected end of file during JSON
    /// parse.` or `Invalid value around line 3, column 7.`, which `JSONDecoder` does not pass on.
    private static func syntaxError(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let described = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return described ?? ErrorText.describe(error)
        }
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
