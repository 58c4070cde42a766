import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ready-made ``Request``: a URL or an ``Endpoint``, and chainable modifiers for the method, path, query,
/// headers, body and timeout, so that most apps need no request types of their own.
///
/// ```swift
/// let search = APIRequest(baseURL)
///     .path("search", "repositories")
///     .query("q", "swift & linux")
///     .header(.accept("application/json"))
///
/// let create = APIRequest(baseURL)
///     .path("users")
///     .method(.post)
///     .jsonBody(NewUser(name: "Ada"))
/// ```
///
/// Modifiers never throw. A modifier that fails (a value that cannot be encoded as JSON, a file that cannot be
/// read) records its error, and ``makeURLRequest()`` throws it, so a ``RequestPerforming`` object delivers it to the
/// completion like any other failure. When several fail, the first one is thrown.
public struct APIRequest: Request {
    /// The request method. ``init(_:method:)`` sets it, the ``method(_:)`` modifier changes it.
    public var method: HTTPMethod

    /// How long to wait for the server, in seconds, or `nil` for the performing session's own timeout.
    public var timeout: TimeInterval?

    /// The most bytes of response body to read, or `nil` for the performing session's own limit.
    public var maximumResponseSize: Int?

    private var baseURL: URL
    private var pathSegments: [String] = []
    private var queryItems: [URLQueryItem] = []
    private var fields: [HTTPHeader] = []
    private var content: Content?
    private var problem: FetchError?

    /// A body and the `Content-Type` it is sent with unless the request sets its own.
    private struct Content: Sendable {
        let body: EncodedBody
        let contentType: String?
    }

    /// Creates a request for a URL.
    ///
    /// - Parameters:
    ///   - url: The absolute URL; ``path(_:)`` and ``query(_:_:)`` extend it.
    ///   - method: The method. The default is ``HTTPMethod/get``.
    public init(_ url: URL, method: HTTPMethod = .get) {
        self.baseURL = url
        self.method = method
    }

    /// Creates a request for an endpoint: its URL and its method.
    ///
    /// - Parameter endpoint: The endpoint; its ``Endpoint/pathSegments`` and ``Endpoint/queryItems`` come first,
    ///   then those the modifiers add.
    public init(_ endpoint: some Endpoint) {
        self.baseURL = endpoint.baseURL
        self.method = endpoint.method
        self.pathSegments = endpoint.pathSegments
        self.queryItems = endpoint.queryItems
    }

    /// The URL the request is sent to, its path segments and query items percent-encoded.
    ///
    /// When no URL can be made from the parts (a path segment `..`, for example), this is the base URL, and
    /// ``makeURLRequest()`` throws the reason.
    public var url: URL {
        // The error is not lost: makeURLRequest() composes the URL again and throws it.
        (try? URLComposition.url(base: baseURL, pathSegments: pathSegments, queryItems: queryItems)) ?? baseURL
    }

    /// The header fields to send, in order, including the body's `Content-Type` when the request sets none.
    public var headers: HeaderFields {
        HeaderFields(allFields.map { (name: $0.name, value: $0.value) })
    }

    /// The body when it is in memory; `nil` when there is none or when it is streamed from a temporary file (a
    /// large ``MultipartBody``).
    public var body: Data? {
        guard case .data(let data) = content?.body else {
            return nil
        }
        return data
    }

    /// Builds the `URLRequest`: the composed URL, method, headers, body (in memory or streamed) and timeout.
    ///
    /// A streamed body is read from a temporary file that is deleted with the last copy of this request value. On
    /// Linux the `URLRequest`'s stream is opened here and keeps reading the file after that; on Apple platforms,
    /// where `URLSession` opens the stream itself, keep the request until the `URLRequest` has been sent, as a
    /// ``Session`` does until the call completes.
    ///
    /// - Returns: The request to send.
    /// - Throws: The first error a modifier recorded: ``FetchError/encoding(_:request:)`` for a body that could not be
    ///   encoded; ``FetchError/invalidRequest(_:)`` when no URL can be made, the method is not a token, or a header
    ///   name or value cannot be sent (it contains a CR, LF or NUL, or the name is not a token).
    public func makeURLRequest() throws -> URLRequest {
        do {
            return try buildURLRequest()
        } catch let error as FetchError {
            throw error.naming(self)
        }
    }

    private func buildURLRequest() throws -> URLRequest {
        if let problem {
            throw problem
        }
        let url = try URLComposition.url(base: baseURL, pathSegments: pathSegments, queryItems: queryItems)
        try HeaderValidation.validate(method: method.rawValue, url: url)
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method.rawValue
        for field in allFields {
            if let problem = field.problem {
                throw FetchError.invalidRequest("\(method) \(url.absoluteString): \(problem)")
            }
            try HeaderValidation.validate(name: field.name, value: field.value, in: "\(method) \(url.absoluteString)")
            urlRequest.setValue(field.value, forHTTPHeaderField: field.name)
        }
        switch content?.body {
        case .data(let data):
            urlRequest.httpBody = data
        case .file(let file, let length):
            guard let stream = InputStream(url: file.url) else {
                throw FetchError.encoding(BodyEncodingError("request body: cannot open \(file.url.path) to stream it"))
            }
            #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
                // Opened now, the stream reads the file even if the request, and with it the file, goes first.
                // swift-corelibs-foundation's URLSession opens only a stream that is not open yet.
                stream.open()
                if stream.streamStatus == .error {
                    let reason = stream.streamError.map { ErrorText.describe($0) } ?? "unknown error"
                    throw FetchError.encoding(
                        BodyEncodingError("request body: cannot open \(file.url.path) to stream it: \(reason)")
                    )
                }
            #endif
            urlRequest.httpBodyStream = stream
            #if !canImport(FoundationNetworking) || FETCH_APPLE_BRANCHES
                // Without it URLSession sends the stream chunked. swift-corelibs-foundation always sends a stream
                // chunked, and would send this header as well, contradicting it, so it is set on Apple platforms
                // only.
                urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length")
            #else
                _ = length
            #endif
        case nil:
            break
        }
        if let timeout {
            urlRequest.timeoutInterval = timeout
        }
        return urlRequest
    }

    /// The request's own fields, then the body's `Content-Type` unless one of them is a `Content-Type`.
    private var allFields: [HTTPHeader] {
        guard let contentType = content?.contentType, index(ofField: "Content-Type") == nil else {
            return fields
        }
        return fields + [.contentType(contentType)]
    }

    private func index(ofField name: String) -> Int? {
        fields.firstIndex { HeaderName.equal($0.name, name) }
    }
}

// MARK: - Modifiers

extension APIRequest {
    /// Returns the request with another method.
    ///
    /// - Parameter method: The method, such as ``HTTPMethod/post``.
    /// - Returns: The changed request.
    public func method(_ method: HTTPMethod) -> APIRequest {
        changed { $0.method = method }
    }

    /// Returns the request with path segments added to its URL, each percent-encoded on its own.
    ///
    /// `.path("users", "ada/lovelace")` adds `/users/ada%2Flovelace`, with exactly one slash after the base URL.
    ///
    /// - Parameter segments: The unencoded segments; a final empty one adds a trailing slash.
    /// - Returns: The changed request.
    public func path(_ segments: String...) -> APIRequest {
        path(segments)
    }

    /// Returns the request with path segments added to its URL, each percent-encoded on its own.
    ///
    /// - Parameter segments: The unencoded segments, in order; a final empty one adds a trailing slash.
    /// - Returns: The changed request.
    package func path(_ segments: [String]) -> APIRequest {
        changed { $0.pathSegments += segments }
    }

    /// Returns the request with a query item added after the URL's own, its name and value percent-encoded.
    ///
    /// Every character arrives as itself: `.query("q", "a+b & c=d")` sends `q=a%2Bb%20%26%20c%3Dd`.
    ///
    /// - Parameters:
    ///   - name: The unencoded name.
    ///   - value: The unencoded value, or `nil` to send the name alone (`?flag`).
    /// - Returns: The changed request.
    public func query(_ name: String, _ value: String?) -> APIRequest {
        changed { $0.queryItems.append(URLQueryItem(name: name, value: value)) }
    }

    /// Returns the request with query items added after the URL's own, in order, percent-encoded.
    ///
    /// - Parameter items: The unencoded items.
    /// - Returns: The changed request.
    package func query(_ items: [URLQueryItem]) -> APIRequest {
        changed { $0.queryItems += items }
    }

    /// Returns the request with a header field set, replacing any field of the same name in any case.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    /// - Returns: The changed request.
    public func header(_ name: String, _ value: String) -> APIRequest {
        header(HTTPHeader(name: name, value: value))
    }

    /// Returns the request with a header field set, replacing any field of the same name in any case.
    ///
    /// - Parameter field: The field, such as `.accept("application/json")`.
    /// - Returns: The changed request.
    public func header(_ field: HTTPHeader) -> APIRequest {
        changed { request in
            if let index = request.index(ofField: field.name) {
                request.fields[index] = field
            } else {
                request.fields.append(field)
            }
        }
    }

    /// Returns the request with default header fields added where it has no field of the same name in any case:
    /// the request's own fields win.
    ///
    /// - Parameter defaults: The fields, such as an API client's `User-Agent` and `Accept`.
    /// - Returns: The changed request.
    package func defaultHeaders(_ defaults: HeaderFields) -> APIRequest {
        changed { request in
            for (name, value) in defaults where request.index(ofField: name) == nil {
                request.fields.append(HTTPHeader(name: name, value: value))
            }
        }
    }

    /// Returns the request with a timeout of its own.
    ///
    /// - Parameter seconds: How long to wait for the server.
    /// - Returns: The changed request.
    public func timeout(_ seconds: TimeInterval) -> APIRequest {
        changed { $0.timeout = seconds }
    }

    /// Returns the request with a limit of its own on the response body, in place of the session's.
    ///
    /// - Parameter bytes: The most bytes of body to read into memory.
    /// - Returns: The changed request.
    public func maximumResponseSize(_ bytes: Int) -> APIRequest {
        changed { $0.maximumResponseSize = bytes }
    }

    /// Returns the request with a body of bytes.
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: The `Content-Type` sent unless the request sets its own, or `nil` for none.
    /// - Returns: The changed request.
    public func body(_ data: Data, contentType: String?) -> APIRequest {
        changed { $0.content = Content(body: .data(data), contentType: contentType) }
    }

    /// Returns the request with a JSON body, encoded now, and `Content-Type: application/json` unless the request
    /// sets its own.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The encoder. The default, ``DefaultEncoding/encoder``, writes ISO-8601 dates and sorted keys.
    /// - Returns: The changed request. When `value` cannot be encoded, ``makeURLRequest()`` throws
    ///   ``FetchError/encoding(_:request:)`` with the encoder's error.
    public func jsonBody(_ value: some Encodable, encoder: JSONEncoder = DefaultEncoding.encoder) -> APIRequest {
        changed { request in
            do {
                let data = try encoder.encode(value)
                request.content = Content(body: .data(data), contentType: "application/json")
            } catch {
                request.record(.encoding(error))
            }
        }
    }

    /// Returns the request with an `application/x-www-form-urlencoded` body, as an HTML form sends it.
    ///
    /// The fields go in the order given; names and values are encoded as browsers do (a space as `+`, every byte
    /// but letters, digits and `*-._` as `%XX`).
    ///
    /// - Parameter fields: The fields, in order: `["name": "Ada", "lang": "en"]`. Names may repeat.
    /// - Returns: The changed request.
    public func formBody(_ fields: KeyValuePairs<String, String>) -> APIRequest {
        formBody(fields.map { (name: $0.key, value: $0.value) })
    }

    /// Returns the request with an `application/x-www-form-urlencoded` body, as an HTML form sends it.
    ///
    /// - Parameter fields: The fields, in order. Names may repeat.
    /// - Returns: The changed request.
    package func formBody(_ fields: [(name: String, value: String)]) -> APIRequest {
        let data = Data(PercentEncoding.form(fields).utf8)
        return changed { $0.content = Content(body: .data(data), contentType: "application/x-www-form-urlencoded") }
    }

    /// Returns the request with a `multipart/form-data` body, encoded now: in memory, or into a temporary file
    /// that the request streams when the body is larger than the body's ``MultipartBody/maximumInMemorySize``.
    ///
    /// The `Content-Type` sent is `multipart/form-data` with the body's boundary; a `Content-Type` the request sets
    /// itself replaces it, boundary included, so leave it unset.
    ///
    /// - Parameter multipart: The fields and files.
    /// - Returns: The changed request. When a file cannot be read or the temporary file written,
    ///   ``makeURLRequest()`` throws ``FetchError/encoding(_:request:)``.
    public func multipartBody(_ multipart: MultipartBody) -> APIRequest {
        changed { request in
            do {
                let (contentType, body) = try multipart.encoded()
                request.content = Content(body: body, contentType: contentType)
            } catch let error as FetchError {
                request.record(error)
            } catch {
                request.record(.encoding(error))
            }
        }
    }

    private func changed(_ change: (inout APIRequest) -> Void) -> APIRequest {
        var request = self
        change(&request)
        return request
    }

    /// Keeps the first error of a modifier, for ``makeURLRequest()`` to throw.
    private mutating func record(_ error: FetchError) {
        if problem == nil {
            problem = error
        }
    }
}
