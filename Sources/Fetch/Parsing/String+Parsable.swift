import Foundation

// MARK: - Parsable

extension String: Parsable {
    /// The body as text, in the charset that the `Content-Type` header names, or UTF-8 when it names none.
    ///
    /// - Parameters:
    ///   - response: The response to read.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The text (empty for an empty body); the error for a status outside 2xx;
    ///   ``FetchError/decoding(_:_:)`` when the charset is unknown or the bytes are not valid in it.
    public static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Self, any Error> {
        response.requireSuccess(errorParser: errorParser).flatMap { response in
            let data = response.data ?? Data()
            let charset = Charset.name(inContentType: response.headers["Content-Type"]) ?? "utf-8"
            guard let encoding = Charset.encoding(named: charset) else {
                return Charset.failure("the charset \(charset.debugDescription) is not supported", response)
            }
            guard let text = String(data: data, encoding: encoding) else {
                return Charset.failure("the body is not valid \(charset) text", response)
            }
            return .success(text)
        }
    }
}

/// Reads the charset parameter of a `Content-Type` header and maps IANA charset names to `String.Encoding`.
enum Charset {
    /// The `charset` parameter of a media type such as `text/plain; charset="ISO-8859-1"`, lowercased.
    static func name(inContentType contentType: String?) -> String? {
        guard let contentType else {
            return nil
        }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else {
                continue
            }
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            return value.lowercased()
        }
        return nil
    }

    /// The encoding of an IANA charset name (lowercased), or `nil` for one Fetch does not decode.
    static func encoding(named name: String) -> String.Encoding? {
        switch name {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "latin1", "l1", "iso_8859-1": .isoLatin1
        case "iso-8859-2", "latin2", "l2": .isoLatin2
        case "windows-1252", "cp1252": .windowsCP1252
        case "utf-16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32": .utf32
        case "utf-32le": .utf32LittleEndian
        case "utf-32be": .utf32BigEndian
        default: nil
        }
    }

    static func failure(_ reason: String, _ response: Response) -> Result<String, any Error> {
        let context = DecodingError.Context(codingPath: [], debugDescription: reason)
        return .failure(FetchError.decoding(.dataCorrupted(context), response))
    }
}
