import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Redaction {
    /// The URL with the values of redacted query parameters, and any password, replaced.
    package func redacting(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        if components.password != nil {
            components.percentEncodedPassword = Self.placeholder
        }
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                let name = item.name.removingPercentEncoding ?? item.name
                guard redactsQueryItem(name), item.value != nil else {
                    return item
                }
                return URLQueryItem(name: item.name, value: Self.placeholder)
            }
        }
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// `body` with the values of the fields that name a secret replaced by `REDACTED`, and those values; `nil` when
    /// it names none. The body keeps its structure: a body that parses as JSON, whatever `contentType` says, at any
    /// depth (see ``HARJSON``); else a form (`application/x-www-form-urlencoded`), field by field; else a multipart
    /// body, part by part, by its boundary (see ``HARMultipart``).
    ///
    /// - Parameters:
    ///   - body: A request's or a response's body.
    ///   - contentType: Its `Content-Type`, if any.
    /// - Returns: The redacted body and the values it no longer holds.
    package func redacting(body: Data, contentType: String?) -> (body: Data, secrets: [String])? {
        if let json = HARJSON.redacting(body, self) {
            return json
        }
        if HARMediaType.isForm(contentType) {
            return HARForm.redacting(body, self)
        }
        if let boundary = HARMediaType.boundary(contentType) {
            return HARMultipart.redacting(body, boundary: boundary, self)
        }
        return nil
    }

    /// The secret values `request` sends, as ``secrets(headers:url:bodyValues:)`` finds them and with those of its
    /// body's fields; none when it cannot be built.
    package func secrets(sentBy request: any Request) -> [String] {
        guard case .success(let urlRequest) = Exchange.makeURLRequest(for: request, defaultTimeout: nil) else {
            return []
        }
        let headers = Exchange.fields(of: request, in: urlRequest)
        let type = headers.first { HeaderName.equal($0.name, "Content-Type") }?.value
        let body = urlRequest.httpBody.flatMap { redacting(body: $0, contentType: type)?.secrets }
        return secrets(headers: headers, url: urlRequest.url, bodyValues: body ?? [])
    }

    /// The secret values `response` hands out: its cookies, the values of its redacted headers and of its body's
    /// fields that name a secret. A recording keeps them out of every entry, since a client sends them back without
    /// the recorder seeing it (a cookie jar adds the `Cookie` header after the middlewares).
    package func secrets(answeredBy response: Response) -> [String] {
        let headers = Array(response.headers)
        let type = headers.first { HeaderName.equal($0.name, "Content-Type") }?.value
        let body = response.data.flatMap { redacting(body: $0, contentType: type)?.secrets }
        return secrets(headers: headers, url: nil, bodyValues: body ?? [])
    }

    /// The values that must not reach the file, longest first: those of redacted headers (and the credential after
    /// an authorization scheme), every cookie's, redacted query parameters' (of `url` and of a `Location`), a URL's
    /// password, and `bodyValues` (those of a body's fields that name a secret).
    package func secrets(headers: [(name: String, value: String)], url: URL?, bodyValues: [String] = []) -> [String] {
        var found = bodyValues
        var urls = url.map { [$0] } ?? []
        for header in headers {
            if HeaderName.equal(header.name, "Location"), let location = URL(string: header.value, relativeTo: url) {
                urls.append(location.absoluteURL)
            }
            guard redactsHeader(header.name) else {
                continue
            }
            found.append(header.value)
            if let space = header.value.firstIndex(of: " ") {
                found.append(String(header.value[header.value.index(after: space)...]))
            }
            for cookie in HARCookies.parse(header: header.name, value: header.value) {
                found.append(cookie.value)
            }
        }
        for url in urls {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
                continue
            }
            found += (components.queryItems ?? []).filter { redactsQueryItem($0.name) }.compactMap(\.value)
            if let password = components.password {
                found.append(password)
            }
        }
        let searched = Set(found.filter { $0.count >= Self.minimumSearchedLength && $0 != Self.placeholder })
        return searched.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }
}

/// Replaces secrets in the text and bytes of an entry, as they are, percent-encoded and form-encoded.
package struct HARScrubber: Sendable {
    private let needles: [Data]
    private let replacement = Data(Redaction.placeholder.utf8)

    package init(secrets: [String]) {
        var needles: [Data] = []
        for secret in secrets {
            for form in [secret, PercentEncoding.component(secret), PercentEncoding.formComponent(secret)] {
                let data = Data(form.utf8)
                if !needles.contains(data) {
                    needles.append(data)
                }
            }
        }
        self.needles = needles.sorted { $0.count > $1.count }
    }

    package var isEmpty: Bool { needles.isEmpty }

    package func scrub(_ text: String) -> String {
        guard !needles.isEmpty else {
            return text
        }
        return String(decoding: scrub(Data(text.utf8)), as: UTF8.self)
    }

    package func scrub(_ data: Data) -> Data {
        var data = data
        for needle in needles {
            var searchStart = data.startIndex
            while let range = data.range(of: needle, in: searchStart..<data.endIndex) {
                data.replaceSubrange(range, with: replacement)
                searchStart = range.lowerBound + replacement.count
            }
        }
        return data
    }
}

/// Cookies as the `Cookie` and `Set-Cookie` headers carry them.
package enum HARCookies {
    /// The cookies of a `Cookie` or `Set-Cookie` header; none for other headers.
    package static func parse(header name: String, value: String) -> [HAR.Cookie] {
        if HeaderName.equal(name, "Cookie") {
            return value.split(separator: ";").compactMap { pair in cookie(String(pair)) }
        }
        if HeaderName.equal(name, "Set-Cookie") {
            return setCookies(value)
        }
        return []
    }

    /// `name=value` as a cookie; `nil` without a `=`.
    private static func cookie(_ pair: String) -> HAR.Cookie? {
        guard let equals = pair.firstIndex(of: "=") else {
            return nil
        }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : HAR.Cookie(name: name, value: value)
    }

    /// The cookies of one or more `Set-Cookie` values, joined with commas as `HTTPURLResponse` joins repeated
    /// fields. A comma starts a new cookie only when `name=` follows it, not inside `Expires=Wed, 21 Oct …`.
    private static func setCookies(_ value: String) -> [HAR.Cookie] {
        SetCookieLines.split(value).compactMap { line in
            let attributes = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = attributes.first, var cookie = cookie(first) else {
                return nil
            }
            for attribute in attributes.dropFirst() {
                let parts = attribute.split(separator: "=", maxSplits: 1).map(String.init)
                let key = parts.first?.lowercased() ?? ""
                let value = parts.count > 1 ? parts[1] : ""
                switch key {
                case "path": cookie.path = value
                case "domain": cookie.domain = value
                case "expires": cookie.expires = HTTPDate.date(from: value).map(ISO8601Milliseconds.string(from:))
                case "httponly": cookie.httpOnly = true
                case "secure": cookie.secure = true
                default: break
                }
            }
            return cookie
        }
    }
}

/// The fields of an `application/x-www-form-urlencoded` body.
package enum HARForm {
    /// The decoded name-value pairs, in order; none when the body is not UTF-8.
    package static func fields(_ body: Data) -> [(name: String, value: String)] {
        guard let text = String(data: body, encoding: .utf8), !text.isEmpty else {
            return []
        }
        return text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// `body` with the value of every field that `redaction` names replaced by `REDACTED`, every other byte as it
    /// was, and those values, decoded; `nil` when no field names a secret.
    package static func redacting(_ body: Data, _ redaction: Redaction) -> (body: Data, secrets: [String])? {
        let bytes = [UInt8](body)
        var result: [UInt8] = []
        var secrets: [String] = []
        var redacted = false
        for (number, pair) in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).enumerated() {
            if number > 0 {
                result.append(UInt8(ascii: "&"))
            }
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")),
                redaction.redactsQueryItem(decode(String(decoding: pair[..<equals], as: UTF8.self)))
            else {
                result += pair
                continue
            }
            redacted = true
            let value = decode(String(decoding: pair[(equals + 1)...], as: UTF8.self))
            if value != Redaction.placeholder {
                secrets.append(value)
            }
            result += pair[...equals]
            result += Array(Redaction.placeholder.utf8)
        }
        return redacted ? (Data(result), secrets) : nil
    }

    private static func decode(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
