import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as a middleware changed it: the one type to change a request with, made from any request and edited
/// as a value.
///
/// ```swift
/// let api = session.with(
///     .adapt { request in
///         request.headers["Accept-Language"] = "en"
///         request.headers.append("X-Trace", "client")
///     })
/// ```
///
/// Its header fields are ``HeaderFields``: order, spelling and repeated fields reach the transport as set (see
/// ``URLSessionTransport`` for the one transport that combines repeated fields). What the request builds beyond its
/// fields (a body streamed from a file, a cache policy) is kept. Middlewares pass it on inward, so a `SpyPerformer`
/// underneath records exactly what went out; ``original`` is the request the app made.
public struct AdaptedRequest: Request {
    /// The request the app made, before any middleware changed it.
    public let original: any Request

    /// The request this one was made from: ``original``, or another middleware's adapted request.
    private let base: any Request

    /// The absolute URL to send the request to.
    public var url: URL

    /// The request method.
    public var method: HTTPMethod

    /// The header fields to send, in order, repeated ones apart.
    public var headers: HeaderFields

    /// The body, or `nil` for none (or for the request's own streamed body, which is kept unless a body is set).
    public var body: Data? {
        get { ownBody ?? base.body }
        set { ownBody = .some(newValue) }
    }

    /// The body set on this request, when one was: `.some(nil)` removes the body.
    private var ownBody: Data??

    /// How long the whole exchange may take, in seconds, or `nil` for the session's own.
    public var timeout: TimeInterval?

    /// The most bytes of response body to read into memory, or `nil` for the transport's own limit.
    public var maximumResponseSize: Int?

    /// Creates a copy of `request` to change: its URL, method, header fields, body and limits.
    ///
    /// - Parameter request: The request to change: the app's, or one a middleware outside has already adapted.
    public init(_ request: any Request) {
        base = request
        original = (request as? AdaptedRequest)?.original ?? request
        url = request.url
        method = request.method
        headers = request.headers
        timeout = request.timeout
        maximumResponseSize = request.maximumResponseSize
    }

    /// Builds the `URLRequest` of the request this one was made from, with this one's URL, method, header fields,
    /// body and timeout in place of its own.
    ///
    /// Only the fields this request changed are set again: the others, and the fields the request it was made from
    /// built beyond its ``Request/headers``, stay as it built them, unless this request sets a field of the same
    /// name. `URLRequest` holds one value per name: repeated fields are combined there as RFC 9110
    /// §5.3 says (see ``URLSessionTransport``), while ``CurlTransport`` sends them apart.
    ///
    /// - Returns: The request to send.
    /// - Throws: The error of the request it was made from; ``FetchError/invalidRequest(_:)`` when the URL has no
    ///   scheme, the method is not a token or a header name or value cannot be sent.
    public func makeURLRequest() throws -> URLRequest {
        var urlRequest = try base.makeURLRequest()
        // Made only for an error: `absoluteString` costs more than the rest of an adaptation on Linux.
        let target = { "\(method) \(url.absoluteString)" }
        if url != base.url {
            guard let scheme = url.scheme, !scheme.isEmpty else {
                throw FetchError.invalidRequest("\(target()): the URL is not absolute (it has no scheme such as https)")
            }
            urlRequest.url = url
        }
        if method != base.method {
            try HeaderValidation.validate(method: method.rawValue, url: url)
            urlRequest.httpMethod = method.rawValue
        }
        // Only the names whose fields changed are set again: a middleware adds or replaces one or two, and each
        // `setValue` costs thousands of instructions on Linux. The rest, and what the request built beyond its
        // declared fields (a streamed body's length, say), stay as the request built them.
        var changed: [(name: String, value: String)] = []
        var removed: [String] = []
        for name in Self.changedNames(from: base.headers, to: headers) {
            let values = headers.values(for: name)
            for value in values {
                try HeaderValidation.validate(name: name, value: value, in: target())
            }
            if values.isEmpty {
                removed.append(name)
            } else {
                changed.append((name, values.joined(separator: HeaderName.equal(name, "Cookie") ? "; " : ", ")))
            }
        }
        urlRequest.setHeaderFields(changed, removing: removed)
        if let ownBody {
            urlRequest.httpBody = ownBody
            if !headers.contains("Content-Length") {
                // A length the request set for a body streamed from a file is not this body's.
                urlRequest.setValue(nil, forHTTPHeaderField: "Content-Length")
            }
        }
        if timeout != base.timeout {
            urlRequest.timeoutInterval = timeout ?? URLRequest(url: url).timeoutInterval
        }
        return urlRequest
    }

    /// The names whose values differ between `declared` and `headers` (compared case-insensitively, in order): as
    /// `headers` spells them, then the names `headers` removed, as `declared` spells them.
    private static func changedNames(from declared: HeaderFields, to headers: HeaderFields) -> [String] {
        if headers.elementsEqual(declared, by: { $0.name == $1.name && $0.value == $1.value }) {
            return []
        }
        var changed: [String] = []
        func isListed(_ name: String) -> Bool {
            changed.contains { HeaderName.equal($0, name) }
        }
        if declared.isEmpty {
            // A request that declared no fields, as most do, before a middleware added some: each name is new.
            for (name, _) in headers where !isListed(name) {
                changed.append(name)
            }
            return changed
        }
        for (name, _) in headers where !isListed(name) && headers.values(for: name) != declared.values(for: name) {
            changed.append(name)
        }
        for (name, _) in declared where !isListed(name) && !headers.contains(name) {
            changed.append(name)
        }
        return changed
    }
}
