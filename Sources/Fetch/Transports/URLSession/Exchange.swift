import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one path from a ``Request`` to a parsed result, shared by ``Session`` and the doubles in FetchTesting so that
/// a test double answers exactly as the network would.
package enum Exchange {
    /// Builds the `URLRequest` to send, applying `defaultTimeout` when the request sets no ``Request/timeout``.
    ///
    /// Every transport of Fetch, and every double, takes its `URLRequest` from here, so this is where the method and
    /// every header field are checked, whatever built them (``HeaderValidation/validate(_:for:)``): nothing that
    /// would split the request or inject a header reaches the wire.
    ///
    /// Errors thrown by ``Request/makeURLRequest()`` arrive as ``FetchError``s: an `EncodingError` becomes
    /// ``FetchError/encoding(_:request:)``; a ``FetchError`` or an error of the app's own passes through unchanged.
    package static func makeURLRequest(
        for request: any Request,
        defaultTimeout: TimeInterval?
    ) -> Result<URLRequest, any Error> {
        do {
            var urlRequest = try request.makeURLRequest()
            try HeaderValidation.validate(urlRequest, for: request)
            if request.timeout == nil, let defaultTimeout, urlRequest.timeoutInterval != defaultTimeout {
                urlRequest.timeoutInterval = defaultTimeout
            }
            return .success(urlRequest)
        } catch let error as EncodingError {
            return .failure(FetchError.encoding(error, request: request))
        } catch let error as FetchError {
            return .failure(error.naming(request))
        } catch {
            return .failure(error)
        }
    }

    /// The header fields `urlRequest` sends for `request`, as the wire should carry them: the request's own
    /// ``Request/headers`` apart, in order and as spelled, for each name `urlRequest` holds as their RFC 9110
    /// combination (``HeaderFields/combined``); for a name `urlRequest` holds otherwise (a request's own
    /// ``Request/makeURLRequest()``, a redirect that dropped a credential), `urlRequest`'s value; then the fields
    /// only `urlRequest` sets, by name.
    ///
    /// A transport that sends fields apart (libcurl) sends these; the HAR recorder records them. Each value is
    /// `urlRequest`'s, or a part of one, so ``HeaderValidation/validate(_:for:)`` on `urlRequest` covers them.
    package static func fields(of request: any Request, in urlRequest: URLRequest) -> [(name: String, value: String)] {
        fields(declared: request.headers, in: urlRequest)
    }

    /// The header fields `urlRequest` sends for a request that declared `declared`, as ``fields(of:in:)`` reads
    /// them.
    package static func fields(declared: HeaderFields, in urlRequest: URLRequest) -> [(name: String, value: String)] {
        guard let sent = urlRequest.allHTTPHeaderFields, !sent.isEmpty else {
            return []
        }
        // A request has a handful of fields: scanning them costs a tenth of hashing lowercased copies of each name.
        if sent.count <= 16, declared.count <= 16 {
            return fieldsByScanning(declared: declared, sent: sent)
        }
        return fieldsByTable(declared: declared, sent: sent)
    }

    /// ``fields(declared:in:)`` for few fields, comparing names as they are.
    package static func fieldsByScanning(
        declared: HeaderFields, sent: [String: String]
    ) -> [(name: String, value: String)] {
        let combined = declared.combined
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(max(sent.count, declared.count))
        var replaced: [String] = []
        for (name, value) in declared {
            guard let wire = sent.first(where: { HeaderName.equal($0.key, name) }) else {
                continue  // the URLRequest does not send it
            }
            if wire.value == combined.first(where: { HeaderName.equal($0.name, name) })?.value {
                fields.append((name, value))
            } else if !replaced.contains(where: { HeaderName.equal($0, name) }) {
                replaced.append(name)
                fields.append((wire.key, wire.value))
            }
        }
        // Into an array, not a filtered dictionary: there are usually none, and an empty array allocates nothing.
        var extras: [(name: String, value: String)] = []
        for (name, value) in sent where !combined.contains(where: { HeaderName.equal($0.name, name) }) {
            extras.append((name, value))
        }
        if !extras.isEmpty {
            fields += extras.sorted { $0.name.lowercased() < $1.name.lowercased() }
        }
        return fields
    }

    /// ``fields(declared:in:)`` for many fields, by tables of lowercased names.
    package static func fieldsByTable(
        declared: HeaderFields, sent: [String: String]
    ) -> [(name: String, value: String)] {
        var sentByName: [String: (name: String, value: String)] = [:]
        sentByName.reserveCapacity(sent.count)
        for (name, value) in sent {
            sentByName[name.lowercased()] = (name, value)
        }
        var combinedByName: [String: String] = [:]
        for (name, value) in declared.combined {
            combinedByName[name.lowercased()] = value
        }
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(max(sent.count, declared.count))
        var replaced: Set<String> = []
        for (name, value) in declared {
            let key = name.lowercased()
            guard let wire = sentByName[key] else {
                continue  // the URLRequest does not send it
            }
            if wire.value == combinedByName[key] {
                fields.append((name, value))
            } else if replaced.insert(key).inserted {
                fields.append(wire)
            }
        }
        for key in sentByName.keys.sorted() where combinedByName[key] == nil {
            if let wire = sentByName[key] {
                fields.append(wire)
            }
        }
        return fields
    }

    /// `fields` with every `Cookie` field's value joined into the first one's, with `; `: a client sends one `Cookie`
    /// line (RFC 6265 §5.4), while it sends other repeated fields apart.
    package static func joiningCookies(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        guard fields.lazy.filter({ HeaderName.equal($0.name, "Cookie") }).dropFirst().first != nil else {
            return fields
        }
        var joined: [(name: String, value: String)] = []
        var cookie: Int?
        for field in fields {
            guard HeaderName.equal(field.name, "Cookie") else {
                joined.append(field)
                continue
            }
            if let cookie {
                joined[cookie].value += "; " + field.value
            } else {
                cookie = joined.count
                joined.append(field)
            }
        }
        return joined
    }

    /// A new stream over `request`'s body, for a task that must send it again (a 307 or 308 redirect, an
    /// authentication challenge).
    ///
    /// A streamed body (a large multipart form) reads a file that the request keeps: building the `URLRequest` again
    /// opens a new stream over it, without encoding the form again. A request that cannot be built now could not be
    /// built before either; `nil` fails the task, which reports the task's error.
    package static func newBodyStream(for request: any Request) -> InputStream? {
        guard case .success(let urlRequest) = makeURLRequest(for: request, defaultTimeout: nil) else {
            return nil
        }
        return urlRequest.httpBodyStream
    }

    /// The ``Response`` a transport's answer makes, or the transport's failure as a ``FetchError`` naming
    /// `request` (and `timeout`, in seconds, when it timed out).
    package static func response(
        for request: any Request,
        data: Data?,
        urlResponse: URLResponse?,
        error: (any Error)?,
        timeout: TimeInterval? = nil
    ) -> Result<Response, any Error> {
        if let error {
            return .failure(transportError(error, for: request, timeout: timeout))
        }
        guard let httpResponse = urlResponse as? HTTPURLResponse else {
            return .failure(FetchError.notHTTPResponse(request: request))
        }
        // RFC 9112 §6.3: a response whose Content-Length is not one length has no known end, and is discarded.
        if let length = httpResponse.value(forHTTPHeaderField: "Content-Length"),
            WireNumber.contentLength(length) == nil
        {
            let message = ResponseHeadParser.Failure.invalidContentLength(length).description
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
            userInfo[NSURLErrorFailingURLErrorKey] = httpResponse.url
            return .failure(FetchError.transport(URLError(.badServerResponse, userInfo: userInfo), request: request))
        }
        let response = Response(httpResponse: httpResponse, data: data, originalRequest: request)
        return .success(response)
    }

    /// The error to deliver for a transport failure of `request`: ``FetchError/timedOut(request:seconds:)`` and
    /// ``FetchError/cancelled(request:)`` for those `URLError` codes, ``FetchError/transport(_:request:)`` for other
    /// `URLError`s, any other error unchanged.
    package static func transportError(
        _ error: any Error,
        for request: (any Request)? = nil,
        timeout: TimeInterval? = nil
    ) -> any Error {
        guard let urlError = error as? URLError else {
            return error
        }
        switch urlError.code {
        case .timedOut: return FetchError.timedOut(request: request, seconds: timeout)
        case .cancelled: return FetchError.cancelled(request: request)
        default: return FetchError.transport(sameOnEveryTransport(urlError), request: request)
        }
    }

    /// `error` with the code libcurl's transport and Apple platforms give the same fault.
    ///
    /// swift-corelibs-foundation reports most of libcurl's failures as `URLError` `-1` (`unknown`), with libcurl's
    /// message alone: a connection closed midway ("transfer closed with 500 bytes remaining to read", "Send
    /// failure: Broken pipe") and a certificate that is not trusted ("SSL certificate problem: self-signed
    /// certificate") among them. Those get `networkConnectionLost` and `serverCertificateUntrusted` (or
    /// `secureConnectionFailed` for another TLS failure), and a connection closed before any answer ("Empty reply
    /// from server", `badServerResponse` there) `networkConnectionLost`, as on Apple platforms and libcurl's
    /// transport, so that a ``RetryPolicy`` treats a fault alike on every transport.
    package static func sameOnEveryTransport(_ error: URLError) -> URLError {
        let message = error.localizedDescription.lowercased()
        if error.code == .badServerResponse, message.contains("empty reply") {
            return URLError(.networkConnectionLost, userInfo: error.userInfo)
        }
        guard error.code == .unknown else {
            return error
        }
        let code: URLError.Code
        if [
            "transfer closed", "connection died", "send failure", "recv failure", "failed sending data",
            "failure when receiving data",
        ].contains(where: message.contains) {
            code = .networkConnectionLost
        } else if message.contains("certificate") {
            code = .serverCertificateUntrusted
        } else if message.contains("ssl") || message.contains("tls") {
            code = .secureConnectionFailed
        } else {
            return error
        }
        return URLError(code, userInfo: error.userInfo)
    }

    /// The error of a transfer that failed after its head and `received` bytes of its body had arrived: a
    /// connection the server closed midway, as ``sameOnEveryTransport(_:)`` tells it, says how much of the body
    /// came (`the connection closed after 500 of 1000 bytes of the body`).
    package static func transferError(_ error: any Error, head: URLResponse?, received: Int) -> any Error {
        guard let urlError = error as? URLError, let head = head as? HTTPURLResponse,
            sameOnEveryTransport(urlError).code == .networkConnectionLost
        else {
            return error
        }
        let expected = head.expectedContentLength
        let of = expected > 0 ? " of \(expected)" : ""
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: "the connection closed after \(received)\(of) bytes of the body",
            NSUnderlyingErrorKey: urlError,
        ]
        if let url = head.url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
        }
        return URLError(.networkConnectionLost, userInfo: userInfo)
    }
}
