import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A description of one HTTP call: where it goes, with which method, headers and body.
///
/// Conform a value type to `Request` for each endpoint of an API; only ``url`` is required:
///
/// ```swift
/// struct GetUser: Request {
///     let id: Int
///     var url: URL { URL(string: "https://api.example.com/users/\(id)")! }
/// }
/// ```
///
/// A ``RequestPerforming`` object (a ``Session`` in the app, a mock or spy in tests) turns the request into a
/// `URLRequest` with ``makeURLRequest()`` and sends it.
public protocol Request: Sendable {
    /// The absolute URL the request is sent to.
    var url: URL { get }

    /// The request method. The default is ``HTTPMethod/get``.
    var method: HTTPMethod { get }

    /// Header fields to send, in order. The default is none.
    var headers: HeaderFields { get }

    /// The request body, or `nil` for none. The default is `nil`.
    var body: Data? { get }

    /// How long the whole exchange may take, redirects included, in seconds, or `nil` to use the performing
    /// session's `URLSessionConfiguration.timeoutIntervalForRequest`; for a stream, how long the server may stay
    /// silent. The default is `nil`.
    var timeout: TimeInterval? { get }

    /// The most bytes of response body to read into memory, or `nil` for the transport's own limit (the
    /// `maximumResponseSize` of ``URLSessionTransport`` and ``CurlTransport``, 100 MiB by default). A body that grows past it ends the call with
    /// ``FetchError/responseTooLarge(limit:request:)``. Streams (`stream`, `events`) are not limited: their consumer
    /// decides. The default is `nil`.
    var maximumResponseSize: Int? { get }

    /// Builds the `URLRequest` that is sent for this request.
    ///
    /// The default implementation validates the URL and headers and copies ``url``, ``method``, ``headers``,
    /// ``body`` and ``timeout`` into a `URLRequest`. Implement it to take full control, for example to stream a
    /// body or to set a cache policy.
    ///
    /// - Returns: The request to send.
    /// - Throws: ``FetchError/invalidRequest(_:)`` when the URL has no scheme or a header name or value cannot be
    ///   sent (it is empty, or contains a CR, LF or NUL character that would let it inject other headers).
    func makeURLRequest() throws -> URLRequest
}

extension Request {
    /// The default method: ``HTTPMethod/get``.
    public var method: HTTPMethod { .get }

    /// The default headers: none.
    public var headers: HeaderFields { [:] }

    /// The default body: none.
    public var body: Data? { nil }

    /// The default timeout: `nil`, the performing session's own.
    public var timeout: TimeInterval? { nil }

    /// The default limit on the body: `nil`, the performing session's own.
    public var maximumResponseSize: Int? { nil }

    /// Builds a `URLRequest` from ``url``, ``method``, ``headers``, ``body`` and ``timeout``, after validating them.
    ///
    /// - Returns: The request to send.
    /// - Throws: ``FetchError/invalidRequest(_:)`` when the URL has no scheme or a header cannot be sent.
    public func makeURLRequest() throws -> URLRequest {
        guard let scheme = url.scheme, !scheme.isEmpty else {
            throw FetchError.invalidRequest(
                "\(method) \(url.absoluteString): the URL is not absolute (it has no scheme such as https)"
            )
        }
        var urlRequest = URLRequest(url: url)
        if method != .get {
            // GET is URLRequest's own default; setting it anyway copies the request on Linux (measured: 4,300
            // instructions, 1 % of a whole in-process call).
            urlRequest.httpMethod = method.rawValue
        }
        for (name, value) in headers {
            try HeaderValidation.validate(name: name, value: value, in: "\(method) \(url.absoluteString)")
            // A repeated name is added, not replaced: Foundation joins the values with ", ".
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = body
        if let timeout {
            urlRequest.timeoutInterval = timeout
        }
        return urlRequest
    }
}

/// Checks header fields before they are sent, so that user input cannot inject headers or split a request.
package enum HeaderValidation {
    /// Throws ``FetchError/invalidRequest(_:)`` unless `name` is an RFC 9110 token and `value` has no CR, LF or NUL.
    ///
    /// Foundation's `URLRequest.setValue(_:forHTTPHeaderField:)` silently drops such values on Linux, so they are
    /// checked before they are set, and the caller hears about it.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    ///   - target: The request, as `GET https://host/path`, for the message.
    /// - Throws: ``FetchError/invalidRequest(_:)`` naming the request, the field and what is wrong with it.
    package static func validate(name: String, value: String, in target: String) throws {
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            throw FetchError.invalidRequest(
                "\(target): header name \(quoted(name)) is not a valid HTTP field name"
                    + " (letters, digits and !#$%&'*+-.^_`|~ only)"
            )
        }
        guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
            throw FetchError.invalidRequest(
                "\(target): the value of header \(name) contains a line break or NUL, which would inject"
                    + " other headers: \(quoted(value))"
            )
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func quoted(_ text: String) -> String {
        text.debugDescription
    }
}
