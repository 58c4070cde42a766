import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HAR.Entry {
    /// How many bytes of a multipart request body an entry keeps by default: 64 KiB.
    package static let defaultMultipartLimit = 65_536

    /// Records an exchange: the request as it was sent, the response as it came, with the secrets that
    /// `redaction` names (and those always redacted: see ``Redaction``) replaced by `REDACTED` everywhere in the
    /// entry.
    ///
    /// Bodies of text (`text/*`, JSON, XML, forms) that are UTF-8 are stored as text, other bodies as base64 with
    /// `"encoding": "base64"`. Multipart request bodies keep their first `maximumMultipartSize` bytes; `bodySize` keeps
    /// their full size and the body's comment says what was cut. A body streamed from a file (a large
    /// ``MultipartBody``) is not recorded: its size is -1 and its comment says so.
    ///
    /// The protocol version is written as `HTTP/1.1` and header sizes as -1 (unknown): the recording middleware
    /// writes them from the response's metrics where the transport counted them (libcurl).
    ///
    /// - Parameters:
    ///   - request: The request as it was sent.
    ///   - declaredFields: The header fields the request declared, recorded apart and in order where `request`
    ///     holds them combined. The default is none: `request`'s own, by name.
    ///   - response: The response to it. When it came from another URL after redirects, the entry's comment
    ///     names that URL.
    ///   - startedDateTime: When the request was sent.
    ///   - timings: How long the phases took; `HAR.Timings.total(_:)` makes them from one duration.
    ///   - redaction: Which secrets to keep out besides those always redacted. The default adds none.
    ///   - maximumMultipartSize: How many bytes of a multipart body to keep. The default is
    ///     ``defaultMultipartLimit``.
    package init(
        request: URLRequest,
        declaring declaredFields: HeaderFields = [:],
        response: Response,
        startedDateTime: Date,
        timings: HAR.Timings,
        redaction: Redaction = [],
        maximumMultipartSize: Int = HAR.Entry.defaultMultipartLimit
    ) {
        let url = request.url ?? response.originalRequest.url
        // As the request declared them, repeated fields apart, where the URLRequest holds them combined.
        let requestHeaders = Exchange.fields(declared: declaredFields, in: request)
        let responseHeaders = Array(response.headers)  // in wire order, repeated fields apart
        let requestType = requestHeaders.first { HeaderName.equal($0.name, "Content-Type") }?.value
        let responseType = responseHeaders.first { HeaderName.equal($0.name, "Content-Type") }?.value
        // The fields of each body that name a secret, by its structure: JSON at any depth, form, multipart.
        let requestBody = request.httpBody.flatMap { redaction.redacting(body: $0, contentType: requestType) }
        let responseBody = response.data.flatMap { redaction.redacting(body: $0, contentType: responseType) }
        let scrubber = HARScrubber(
            secrets: redaction.secrets(
                headers: requestHeaders + responseHeaders, url: url,
                bodyValues: (requestBody?.secrets ?? []) + (responseBody?.secrets ?? [])))

        var sent = HAR.SentRequest(
            method: request.httpMethod ?? "GET",
            url: redaction.redacting(url),
            cookies: requestHeaders.flatMap { HARCookies.parse(header: $0.name, value: $0.value) }.map(redacted),
            headers: requestHeaders.map { HAR.Field(name: $0.name, value: Self.value(of: $0, redaction)) },
            queryString: Self.queryString(of: url, redaction)
        )
        if let body = request.httpBody {
            let stored = HARBodyStorage(
                body: requestBody?.body ?? body,
                contentType: requestType, maximumMultipartSize: maximumMultipartSize, scrubber: scrubber)
            var postData = HAR.PostData(
                mimeType: requestType ?? "application/octet-stream", text: stored.text, encoding: stored.encoding)
            postData.comment = stored.comment
            sent.postData = postData
            sent.bodySize = body.count
        } else if request.httpBodyStream != nil {
            var postData = HAR.PostData(mimeType: requestType ?? "application/octet-stream", text: nil)
            postData.comment = "The body was streamed from a file and is not recorded."
            sent.postData = postData
            sent.bodySize = -1
        }

        let body = responseBody?.body ?? response.data ?? Data()
        let stored = HARBodyStorage(
            body: body, contentType: responseType, maximumMultipartSize: nil, scrubber: scrubber)
        // The size of the body as stored, which is what replay answers with: smaller than received when a secret
        // in it was redacted.
        var content = HAR.Content(
            size: stored.size, mimeType: responseType ?? "x-unknown", text: stored.text, encoding: stored.encoding)
        content.comment = stored.comment
        let location = responseHeaders.first { HeaderName.equal($0.name, "Location") }?.value
        let received = HAR.ReceivedResponse(
            status: response.status,
            statusText: HTTPStatus.reasonPhrase(response.status) ?? "",
            cookies: responseHeaders.flatMap { HARCookies.parse(header: $0.name, value: $0.value) }.map(redacted),
            headers: responseHeaders.map { HAR.Field(name: $0.name, value: Self.value(of: $0, redaction)) },
            content: content,
            redirectURL: location.map { Self.redirectURL($0, from: url, redaction) } ?? ""
        )
        self.init(startedDateTime: startedDateTime, request: sent, response: received, timings: timings)
        if let final = response.url, final != url {
            comment = "Answered by \(redaction.redacting(final)) after redirects."
        }
        if !scrubber.isEmpty {
            scrub(with: scrubber)
        }
    }

    /// Records an exchange of a Fetch ``Request``, as the `URLRequest` form
    /// does with the `URLRequest` that `request` makes.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - response: The response to it.
    ///   - startedDateTime: When the request was sent.
    ///   - timings: How long the phases took.
    ///   - redaction: Which secrets to keep out besides those always redacted. The default adds none.
    ///   - maximumMultipartSize: How many bytes of a multipart body to keep.
    /// - Throws: What ``Request/makeURLRequest()`` throws.
    package init(
        request: any Request,
        response: Response,
        startedDateTime: Date,
        timings: HAR.Timings,
        redaction: Redaction = [],
        maximumMultipartSize: Int = HAR.Entry.defaultMultipartLimit
    ) throws {
        self.init(
            request: try request.makeURLRequest(), declaring: request.headers, response: response,
            startedDateTime: startedDateTime,
            timings: timings, redaction: redaction, maximumMultipartSize: maximumMultipartSize)
    }

    private static func value(of header: (name: String, value: String), _ redaction: Redaction) -> String {
        redaction.redactsHeader(header.name) ? Redaction.placeholder : header.value
    }

    private static func queryString(of url: URL, _ redaction: Redaction) -> [HAR.Field] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        return items.map { item in
            let value = redaction.redactsQueryItem(item.name) ? Redaction.placeholder : item.value ?? ""
            return HAR.Field(name: item.name, value: value)
        }
    }

    private static func redirectURL(_ location: String, from url: URL, _ redaction: Redaction) -> String {
        guard let target = URL(string: location, relativeTo: url) else {
            return location
        }
        return redaction.redacting(target.absoluteURL)
    }

    /// The entry with every secret `scrubber` knows replaced, in its bodies too (text bodies; sizes follow): for
    /// secrets learnt after the entry was made, such as a token a later call sends.
    func scrubbed(with scrubber: HARScrubber) -> HAR.Entry {
        var entry = self
        entry.scrub(with: scrubber)
        if entry.request.postData?.encoding == nil, let text = entry.request.postData?.text {
            entry.request.postData?.text = scrubber.scrub(text)
        }
        if entry.response.content.encoding == nil, let text = entry.response.content.text {
            let scrubbed = scrubber.scrub(text)
            if scrubbed != text {
                entry.response.content.text = scrubbed
                entry.response.content.size = scrubbed.utf8.count
            }
        }
        return entry
    }

    /// Replaces every secret in every text of the entry.
    private mutating func scrub(with scrubber: HARScrubber) {
        request.url = scrubber.scrub(request.url)
        request.headers = request.headers.map { scrubbed($0, scrubber) }
        request.queryString = request.queryString.map { scrubbed($0, scrubber) }
        response.headers = response.headers.map { scrubbed($0, scrubber) }
        response.redirectURL = scrubber.scrub(response.redirectURL)
        comment = comment.map(scrubber.scrub)
    }

    private func scrubbed(_ field: HAR.Field, _ scrubber: HARScrubber) -> HAR.Field {
        HAR.Field(name: field.name, value: scrubber.scrub(field.value))
    }
}

/// A cookie whose value is replaced: cookies travel in `Cookie` and `Set-Cookie`, which are always redacted.
private func redacted(_ cookie: HAR.Cookie) -> HAR.Cookie {
    var cookie = cookie
    cookie.value = Redaction.placeholder
    return cookie
}

/// How a body is written into an entry: as text or base64, scrubbed of secrets, cut to a limit.
private struct HARBodyStorage {
    var text: String?
    var encoding: String?
    var comment: String?
    /// The number of bytes stored.
    var size = 0

    init(body: Data, contentType: String?, maximumMultipartSize: Int?, scrubber: HARScrubber) {
        guard !body.isEmpty else {
            return
        }
        var kept = scrubber.scrub(body)
        if HARMediaType.isMultipart(contentType), let limit = maximumMultipartSize, kept.count > limit {
            kept = kept.prefix(max(0, limit))
            comment = "Fetch kept the first \(kept.count) of the body's \(body.count) bytes."
        }
        size = kept.count
        if HARMediaType.isText(contentType) || HARMediaType.isMultipart(contentType),
            let text = String(data: kept, encoding: .utf8)
        {
            self.text = text
        } else {
            text = kept.base64EncodedString()
            encoding = "base64"
        }
    }
}

/// What a `Content-Type` says about how to store a body.
package enum HARMediaType {
    /// The media type alone, lowercased: `application/json` for `application/json; charset=utf-8`.
    static func essence(_ contentType: String?) -> String {
        let type = contentType?.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Text, JSON, XML, JavaScript and forms: bodies a person reads.
    static func isText(_ contentType: String?) -> Bool {
        let type = essence(contentType)
        return type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml")
            || [
                "application/json", "application/xml", "application/javascript", "application/x-ndjson",
                "application/x-www-form-urlencoded",
            ].contains(type)
    }

    /// `application/x-www-form-urlencoded`.
    package static func isForm(_ contentType: String?) -> Bool {
        essence(contentType) == "application/x-www-form-urlencoded"
    }

    /// `multipart/*`.
    package static func isMultipart(_ contentType: String?) -> Bool {
        essence(contentType).hasPrefix("multipart/")
    }

    /// The `boundary` parameter of a multipart `Content-Type`.
    package static func boundary(_ contentType: String?) -> String? {
        guard let contentType, isMultipart(contentType) else {
            return nil
        }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if parts.count == 2, parts[0].lowercased() == "boundary" {
                return parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}
