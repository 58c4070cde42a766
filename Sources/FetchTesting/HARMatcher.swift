import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a replaying performer finds the recorded exchange that answers a request.
///
/// A request matches a recorded one when their method, URL and body are the same:
///
/// - **URL**: the scheme, host, port and path are equal, and the query has the same parameters with the same
///   values, in any order.
/// - **Body**: JSON bodies are equal as JSON (key order and spacing do not matter), form bodies have the same
///   fields in any order, multipart bodies are equal apart from their boundary, other bodies byte for byte.
/// - A value recorded as `REDACTED` (see `Redaction`) matches any value.
///
/// Header fields are not compared unless `includingHeaders` is set. Then every recorded field must be sent with the
/// same value (names in any case, in any order), except the fields of `ignoringHeaders` (a request id, a date, a
/// signature that changes each run), `Content-Length`, the boundary of a multipart `Content-Type`, and a field
/// recorded as `REDACTED`, which matches any value: `HARMatcher(includingHeaders: true, ignoringHeaders:
/// ["X-Amz-Date", "Authorization"])`.
///
/// Settings also leave out query parameters or body fields that change from run to run:
///
/// ```swift
/// let matcher = HARMatcher(ignoringQueryItems: ["nonce"], ignoringBodyFields: ["timestamp"])
/// let mock = try MockPerformer(replaying: fixture, matching: matcher)
/// ```
public struct HARMatcher: Sendable {
    /// The parts of a request that are compared.
    public enum Part: String, Sendable, CaseIterable {
        /// The method, such as `GET`.
        case method
        /// The scheme, host, port and path.
        case url
        /// The query parameters.
        case query
        /// The header fields, when the matcher compares them.
        case headers
        /// The body.
        case body
    }

    /// Whether the header fields must be the same too (names in any case, in any order). The default is `false`.
    ///
    /// `Content-Length` is never compared, nor the boundary of a multipart `Content-Type`.
    let includesHeaders: Bool

    /// Header fields left out of the comparison when `includesHeaders` is set, such as `X-Request-ID`.
    let ignoredHeaders: [String]

    /// Query parameters left out of the comparison, such as a nonce or a cache buster.
    let ignoredQueryItems: [String]

    /// Body fields left out of the comparison: keys of JSON objects, at any depth, and fields of form bodies,
    /// such as `timestamp`.
    let ignoredBodyFields: [String]

    /// Creates a matcher.
    ///
    /// - Parameters:
    ///   - includingHeaders: Whether header fields are compared. The default is `false`.
    ///   - ignoringHeaders: Header fields not compared. The default is none.
    ///   - ignoringQueryItems: Query parameters not compared. The default is none.
    ///   - ignoringBodyFields: JSON keys and form fields not compared. The default is none.
    public init(
        includingHeaders: Bool = false,
        ignoringHeaders: [String] = [],
        ignoringQueryItems: [String] = [],
        ignoringBodyFields: [String] = []
    ) {
        self.includesHeaders = includingHeaders
        self.ignoredHeaders = ignoringHeaders
        self.ignoredQueryItems = ignoringQueryItems
        self.ignoredBodyFields = ignoringBodyFields
    }

    /// How `request` differs from `recorded`: nothing when they match.
    func differences(recorded: ExchangeKey, request: ExchangeKey) -> [Difference] {
        var found: [Difference] = []
        if recorded.method != request.method {
            found.append(Difference(.method, "\(recorded.method) recorded, \(request.method) here"))
        }
        if recorded.location != request.location {
            found.append(Difference(.url, "\(recorded.location) recorded, \(request.location) here"))
        }
        let ignoredQuery = Set(ignoredQueryItems)
        if let detail = Self.fieldDifference(
            recorded.query.filter { !ignoredQuery.contains($0.name) },
            request.query.filter { !ignoredQuery.contains($0.name) },
            sameName: { $0 == $1 })
        {
            found.append(Difference(.query, detail))
        }
        if includesHeaders, let detail = headerDifference(recorded, request) {
            found.append(Difference(.headers, detail))
        }
        if let detail = bodyDifference(recorded, request) {
            found.append(Difference(.body, detail))
        }
        return found
    }

    private func headerDifference(_ recorded: ExchangeKey, _ request: ExchangeKey) -> String? {
        func compared(_ headers: [Field]) -> [Field] {
            headers.compactMap { header in
                if HeaderName.equal(header.name, "Content-Length")
                    || ignoredHeaders.contains(where: { HeaderName.equal($0, header.name) })
                {
                    return nil
                }
                if HeaderName.equal(header.name, "Content-Type"), let boundary = HARMediaType.boundary(header.value) {
                    return Field(header.name, header.value.replacingOccurrences(of: boundary, with: "…"))
                }
                return header
            }
        }
        return Self.fieldDifference(
            compared(recorded.headers), compared(request.headers), sameName: { HeaderName.equal($0, $1) })
    }

    private func bodyDifference(_ recorded: ExchangeKey, _ request: ExchangeKey) -> String? {
        guard !recorded.bodyIsUnknown, !request.bodyIsUnknown else {
            return nil
        }
        if recorded.body.isEmpty && request.body.isEmpty {
            return nil
        }
        let ignored = Set(ignoredBodyFields)
        if let recordedJSON = JSONValue(recorded.body), let requestJSON = JSONValue(request.body) {
            let difference = recordedJSON.removingKeys(ignored).difference(from: requestJSON.removingKeys(ignored))
            return difference.map { "at \($0.path), \($0.recorded) recorded, \($0.request) here" }
        }
        if HARMediaType.isForm(recorded.contentType) || HARMediaType.isForm(request.contentType) {
            return Self.fieldDifference(
                HARForm.fields(recorded.body).map { Field($0.name, $0.value) }.filter { !ignored.contains($0.name) },
                HARForm.fields(request.body).map { Field($0.name, $0.value) }.filter { !ignored.contains($0.name) },
                sameName: { $0 == $1 })
        }
        let recordedBytes = recorded.normalizedBody
        let requestBytes = request.normalizedBody
        let matches: Bool
        if let fullSize = recorded.cutFrom {
            matches = request.body.count == fullSize && requestBytes.starts(with: recordedBytes)
        } else {
            matches = Wildcard.matches(pattern: recordedBytes, requestBytes)
        }
        guard !matches else {
            return nil
        }
        let recordedSize = recorded.cutFrom ?? recorded.body.count
        return "\(recordedSize) bytes recorded (\(ErrorText.body(recorded.body))), \(request.body.count) bytes here"
            + " (\(ErrorText.body(request.body)))"
    }

    /// The first difference between two lists of fields compared as multisets, with `REDACTED` recorded matching
    /// any value; `nil` when they match.
    private static func fieldDifference(
        _ recorded: [Field],
        _ request: [Field],
        sameName: (String, String) -> Bool
    ) -> String? {
        var unmatched = request
        var missing: [Field] = []
        // Exact values first, so that a REDACTED wildcard does not take a value another field needs.
        for field in recorded.sorted(by: {
            ($0.value == Redaction.placeholder ? 1 : 0) < ($1.value == Redaction.placeholder ? 1 : 0)
        }) {
            if let index = unmatched.firstIndex(where: {
                sameName($0.name, field.name) && (field.value == $0.value || field.value == Redaction.placeholder)
            }) {
                unmatched.remove(at: index)
            } else {
                missing.append(field)
            }
        }
        if let field = missing.first {
            if let other = unmatched.first(where: { sameName($0.name, field.name) }) {
                return "\(field.name) is \(field.value.debugDescription) recorded, \(other.value.debugDescription) here"
            }
            return "\(field.name)=\(field.value.debugDescription) is recorded but not sent"
        }
        if let field = unmatched.first {
            return "\(field.name)=\(field.value.debugDescription) is sent but not recorded"
        }
        return nil
    }
}

extension HARMatcher {
    /// One way a request differs from a recorded one.
    struct Difference: Sendable {
        let part: Part
        let detail: String

        init(_ part: Part, _ detail: String) {
            self.part = part
            self.detail = detail
        }

        /// `the query: page is "2" recorded, "3" here`.
        var description: String {
            "the \(part == .url ? "URL" : part.rawValue): \(detail)"
        }

        /// How far apart it makes two requests: another path counts most, another header least.
        var weight: Int {
            switch part {
            case .url: 8
            case .method: 4
            case .query, .body: 2
            case .headers: 1
            }
        }
    }

    /// A name and a value: a query parameter, header field or form field.
    struct Field: Sendable {
        let name: String
        let value: String

        init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }
}

/// What a request is matched on, from a request about to be sent or from a recorded entry.
struct ExchangeKey: Sendable {
    /// The method, in capitals.
    let method: String
    /// `http://host:port/path`, with the scheme and host lowercased and a default port left out.
    let location: String
    let query: [HARMatcher.Field]
    let headers: [HARMatcher.Field]
    let contentType: String?
    let body: Data
    /// The recorded body's full size when only its first bytes were recorded.
    let cutFrom: Int?
    /// Whether the body is not known: streamed from a file, and not recorded.
    let bodyIsUnknown: Bool

    /// The key of `urlRequest`, its header fields apart where the request declared them so (`fields`), as the
    /// recorder records them.
    init(_ urlRequest: URLRequest, declaring fields: HeaderFields = [:]) {
        let headers = Exchange.fields(declared: fields, in: urlRequest).map { HARMatcher.Field($0.name, $0.value) }
        self.init(
            method: urlRequest.httpMethod ?? "GET",
            url: urlRequest.url?.absoluteString ?? "",
            headers: headers,
            body: urlRequest.httpBody ?? Data(),
            cutFrom: nil,
            bodyIsUnknown: urlRequest.httpBody == nil && urlRequest.httpBodyStream != nil
        )
    }

    /// The key of a recorded request.
    ///
    /// - Throws: `HARError` naming `path` when the body's text is not what its encoding says.
    init(_ recorded: HAR.SentRequest, at path: String) throws {
        let body = try recorded.postData.map { try $0.bytes(at: "\(path).postData") } ?? Data()
        let isCut = recorded.bodySize > body.count && HARMediaType.isMultipart(recorded.postData?.mimeType)
        self.init(
            method: recorded.method,
            url: recorded.url,
            headers: recorded.headers.map { HARMatcher.Field($0.name, $0.value) },
            body: body,
            cutFrom: isCut ? recorded.bodySize : nil,
            bodyIsUnknown: recorded.bodySize < 0
        )
    }

    private init(
        method: String, url: String, headers: [HARMatcher.Field], body: Data, cutFrom: Int?, bodyIsUnknown: Bool
    ) {
        self.method = method.uppercased()
        let components = URLComponents(string: url)
        if let components, let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased() {
            let isDefaultPort =
                components.port == nil || (scheme == "http" && components.port == 80)
                || (scheme == "https" && components.port == 443)
            let port = isDefaultPort ? "" : ":\(components.port ?? 0)"
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            location = "\(scheme)://\(host)\(port)\(path)"
        } else {
            location = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        }
        query = (components?.queryItems ?? []).map { HARMatcher.Field($0.name, $0.value ?? "") }
        self.headers = headers
        contentType = headers.first { HeaderName.equal($0.name, "Content-Type") }?.value
        self.body = body
        self.cutFrom = cutFrom
        self.bodyIsUnknown = bodyIsUnknown
    }

    /// The body with a multipart boundary replaced by a fixed one: each request makes a new boundary.
    var normalizedBody: Data {
        guard let boundary = HARMediaType.boundary(contentType), !boundary.isEmpty else {
            return body
        }
        var normalized = body
        let needle = Data(boundary.utf8)
        let fixed = Data("Fetch-Replay-Boundary".utf8)
        var start = normalized.startIndex
        while let range = normalized.range(of: needle, in: start..<normalized.endIndex) {
            normalized.replaceSubrange(range, with: fixed)
            start = range.lowerBound + fixed.count
        }
        return normalized
    }

    /// `POST http://host/path?query (12 bytes of body)`, to name the request in an error.
    var summary: String {
        let query = self.query.isEmpty ? "" : "?" + self.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let body =
            bodyIsUnknown ? " (a streamed body)" : body.isEmpty ? "" : " (\(cutFrom ?? body.count) bytes of body)"
        return "\(method) \(location)\(query)\(body)"
    }
}

/// Byte comparison where `REDACTED` in the recorded body stands for any run of bytes.
private enum Wildcard {
    static func matches(pattern: Data, _ data: Data) -> Bool {
        let placeholder = Data(Redaction.placeholder.utf8)
        guard pattern.range(of: placeholder) != nil else {
            return pattern == data
        }
        var pieces: [Data] = []
        var start = pattern.startIndex
        while let range = pattern.range(of: placeholder, in: start..<pattern.endIndex) {
            pieces.append(pattern[start..<range.lowerBound])
            start = range.upperBound
        }
        pieces.append(pattern[start..<pattern.endIndex])
        guard let first = pieces.first, let last = pieces.last, data.starts(with: first),
            data.count >= first.count + last.count, data.suffix(last.count) == last
        else {
            return false
        }
        var position = data.startIndex + first.count
        let end = data.endIndex - last.count
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard position <= end, let range = data.range(of: piece, in: position..<end) else {
                return false
            }
            position = range.upperBound
        }
        return true
    }
}
