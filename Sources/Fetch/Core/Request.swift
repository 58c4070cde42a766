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

    /// How long the whole exchange may take, redirects included, in seconds; for a stream, how long the server may
    /// stay silent. The default is `nil`: no deadline, only the performing session's idle timeout (its
    /// `URLSessionConfiguration.timeoutIntervalForRequest`, 60 s by default and on libcurl, is how long the server may
    /// send nothing, as in `URLSession`).
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
    /// - Throws: ``FetchError/invalidRequest(_:)`` when the URL has no scheme, the method is not an RFC 9110 token
    ///   (it is empty, or has a space, CR or LF that would change the request line), or a header name or value
    ///   cannot be sent (it is empty, or contains a CR, LF or NUL character that would let it inject other headers).
    ///   Whatever this method builds, Fetch checks the method and every header field again before sending.
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
    /// - Throws: ``FetchError/invalidRequest(_:)`` when the URL has no scheme, or the method or a header cannot be
    ///   sent.
    public func makeURLRequest() throws -> URLRequest {
        guard let scheme = url.scheme, !scheme.isEmpty else {
            throw FetchError.invalidRequest(
                "\(method) \(url.absoluteString): the URL is not absolute (it has no scheme such as https)"
            )
        }
        try HeaderValidation.validate(method: method.rawValue, url: url)
        var urlRequest = URLRequest(url: url)
        if method != .get {
            // GET is URLRequest's own default; setting it anyway copies the request on Linux (measured: 4,300
            // instructions, 1 % of a whole in-process call).
            urlRequest.httpMethod = method.rawValue
        }
        let headers = headers
        for (name, value) in headers {
            try HeaderValidation.validate(name: name, value: value, in: "\(method) \(url.absoluteString)")
        }
        // URLRequest holds one value per name: repeated fields are combined as RFC 9110 says (Cookie's with "; "),
        // and a transport that sends fields apart reads them from `headers` again (Exchange.fields(of:in:)).
        urlRequest.setHeaderFields(headers.combined)
        urlRequest.httpBody = body
        if let timeout {
            urlRequest.timeoutInterval = timeout
        }
        return urlRequest
    }
}

/// Checks a request's method and header fields before they are sent, so that user input cannot inject headers or
/// split a request.
///
/// ``validate(_:for:)`` runs on every `URLRequest` just before it is handed to a transport, whatever built it (the
/// default ``Request/makeURLRequest()``, a request's own, an adapting middleware, a redirect); the other checks run
/// earlier, where a field is set, so that the message names it there.
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
    /// - Throws: ``FetchError/invalidRequest(_:)`` naming the request, the field and the character that is wrong.
    package static func validate(name: String, value: String, in target: @autoclosure () -> String) throws {
        if let fault = tokenFault(name) {
            throw FetchError.invalidRequest(
                "\(target()): header name \(quoted(name)) is not a valid HTTP field name: \(fault)")
        }
        // Bytes first: this runs for every field of every request.
        if HeaderName.hasLineBreakOrNUL(value),
            let bad = value.unicodeScalars.first(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
        {
            // The value of a credential stays out of the message, which ends up in logs.
            let shown = Redaction.default.redactsHeader(name) ? Redaction.placeholder : quoted(value)
            throw FetchError.invalidRequest(
                "\(target()): the value of header \(name) contains \(quoted(bad)), a line break or NUL that would"
                    + " inject other headers: \(shown)"
            )
        }
    }

    /// Throws ``FetchError/invalidRequest(_:)`` unless `method` is an RFC 9110 token (§9.1): a method with a space
    /// would change the request target, one with CR or LF would inject header lines or a second request.
    ///
    /// - Parameters:
    ///   - method: The method as it would be sent.
    ///   - url: The request's URL, for the message.
    /// - Throws: ``FetchError/invalidRequest(_:)`` naming the request, the method and the character that is wrong.
    package static func validate(method: String, url: URL?) throws {
        if let fault = tokenFault(method) {
            throw FetchError.invalidRequest(
                "\(quoted(method)) \(url.map(ErrorText.url) ?? ""): the method is not a valid HTTP method: \(fault)")
        }
    }

    /// Checks the method and every header field of `urlRequest`, as it is about to be sent for `request`.
    ///
    /// - Parameters:
    ///   - urlRequest: The request about to be handed to a transport.
    ///   - request: The request it was made for, for the message.
    /// - Throws: ``FetchError/invalidRequest(_:)`` naming the request, the field and the character that is wrong.
    package static func validate(_ urlRequest: URLRequest, for request: any Request) throws {
        try validate(method: urlRequest.httpMethod ?? "GET", url: urlRequest.url ?? request.url)
        guard let fields = urlRequest.allHTTPHeaderFields, !fields.isEmpty else {
            return
        }
        for (name, value) in fields {
            try validate(name: name, value: value, in: ErrorText.target(request))
        }
    }

    /// Whether `text` is an RFC 9110 token: one or more of letters, digits and ``!#$%&'*+-.^_`|~``.
    package static func isToken(_ text: String) -> Bool {
        var text = text
        return !text.isEmpty && text.withUTF8 { $0.allSatisfy(HeaderName.isTokenByte) }
    }

    /// Why `text` is not an RFC 9110 token (it is empty, or the first character that is not allowed), or `nil` when
    /// it is one.
    private static func tokenFault(_ text: String) -> String? {
        let rule = "(an RFC 9110 token has letters, digits and !#$%&'*+-.^_`|~ only)"
        guard !text.isEmpty else {
            return "it is empty \(rule)"
        }
        guard !isToken(text),
            let bad = text.unicodeScalars.first(where: { !$0.isASCII || !HeaderName.isTokenByte(UInt8($0.value)) })
        else {
            return nil
        }
        return "it contains \(quoted(bad)) \(rule)"
    }

    private static func quoted(_ text: String) -> String {
        text.debugDescription
    }

    private static func quoted(_ scalar: Unicode.Scalar) -> String {
        String(scalar).debugDescription
    }
}

extension URLRequest {
    /// Sets each of `fields` (one per name, case-insensitively), replacing a field of the same name in any case, and
    /// removes each name of `removing`; the other fields stay. One assignment of the whole dictionary: on Linux each
    /// `setValue(_:forHTTPHeaderField:)` capitalizes the name, validates the value character by character and
    /// lowercases every name held, thousands of instructions a field (Fetch validates every field itself, more
    /// strictly: ``HeaderValidation``). Names keep the request's spelling.
    mutating func setHeaderFields(_ fields: [(name: String, value: String)], removing: [String] = []) {
        guard !fields.isEmpty || !removing.isEmpty else {
            return
        }
        var all = allHTTPHeaderFields ?? [:]
        if !all.isEmpty {
            let replaced = fields.map(\.name) + removing
            for name in all.keys where replaced.contains(where: { HeaderName.equal($0, name) }) {
                all[name] = nil
            }
        }
        for (name, value) in fields {
            all[name] = value
        }
        allHTTPHeaderFields = all
    }
}
