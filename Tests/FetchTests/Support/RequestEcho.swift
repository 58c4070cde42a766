import Fetch
import Foundation

/// What the test server's `/requests/echo` route decoded from a request, with Python's own parsers.
struct RequestEcho: Decodable, Parsable {
    let method: String
    /// The request target exactly as it arrived: path and query, still percent-encoded.
    let target: String
    /// The path's segments after the first `/`, each percent-decoded on its own.
    let segments: [String]
    /// The query's name-value pairs, in order, decoded by `urllib.parse.parse_qsl`.
    let query: [[String]]
    let rawQuery: String
    /// Header fields, names lowercased.
    let headers: [String: String]
    let bodySize: Int
    let body: String
    /// The form body's name-value pairs, in order, decoded by `urllib.parse.parse_qsl`.
    let form: [[String]]?
    /// The multipart body as `email.parser.BytesParser` read it.
    let multipart: Multipart?

    struct Multipart: Decodable {
        let boundary: String
        let parts: [Part]
        let defects: [String]
        let startsWithDelimiter: Bool
        let endsWithCloseDelimiter: Bool
    }

    struct Part: Decodable, Equatable {
        let name: String?
        let filename: String?
        let contentType: String?
        let size: Int
        let sha256: String
        let base64: String?
        let defects: [String]?

        var data: Data? { base64.flatMap { Data(base64Encoded: $0) } }
    }
}

/// The JSON body the test server's `/requests/echo` route decoded, and the headers it came with.
struct JSONEcho<Value: Decodable & Sendable>: Decodable, Parsable {
    let headers: [String: String]
    let json: Value
}

/// What the test server's `/requests/upload-digest` route read from a multipart body as it streamed in.
struct UploadDigest: Decodable, Parsable {
    let contentLength: String?
    let transferEncoding: String?
    let bytesReceived: Int
    let parts: [RequestEcho.Part]
    let closed: Bool
    let epilogue: Int
}

/// The size and SHA-256 of a file, as the test server's `/requests/file-digest` route read it.
struct FileDigest: Decodable, Parsable, Equatable {
    let size: Int
    let sha256: String
}
