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

    /// The secret values `request` sends, as ``secrets(headers:url:formBody:bodyValues:)`` finds them; none when it
    /// cannot be built.
    package func secrets(sentBy request: any Request) -> [String] {
        guard case .success(let urlRequest) = Exchange.makeURLRequest(for: request, defaultTimeout: nil) else {
            return []
        }
        let headers = (urlRequest.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        let type = headers.first { HeaderName.equal($0.name, "Content-Type") }?.value
        let body = urlRequest.httpBody
        let json = HARMediaType.isJSON(type) ? body.flatMap { HARJSON.redacting($0, self)?.secrets } : nil
        return secrets(
            headers: headers, url: urlRequest.url, formBody: HARMediaType.isForm(type) ? body : nil,
            bodyValues: json ?? [])
    }

    /// The values that must not reach the file, longest first: those of redacted headers (and the credential after
    /// an authorization scheme), cookies, redacted query parameters and form fields, a URL's password, and
    /// `bodyValues` (those of redacted JSON keys).
    package func secrets(
        headers: [(name: String, value: String)], url: URL?, formBody: Data?, bodyValues: [String] = []
    ) -> [String] {
        var found = bodyValues
        for header in headers where redactsHeader(header.name) {
            found.append(header.value)
            if let space = header.value.firstIndex(of: " ") {
                found.append(String(header.value[header.value.index(after: space)...]))
            }
            for cookie in HARCookies.parse(header: header.name, value: header.value) {
                found.append(cookie.value)
            }
        }
        if let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true) {
            found += (components.queryItems ?? []).filter { redactsQueryItem($0.name) }.compactMap(\.value)
            if let password = components.password {
                found.append(password)
            }
        }
        if let formBody {
            found += HARForm.fields(formBody).filter { redactsQueryItem($0.name) }.map(\.value)
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
        var lines: [String] = []
        for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
            if let last = lines.last, !startsCookie(piece) {
                lines[lines.count - 1] = last + "," + piece
            } else {
                lines.append(String(piece))
            }
        }
        return lines.compactMap { line in
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
    /// Whether `piece` begins `name=`, with a token for the name.
    private static func startsCookie(_ piece: Substring) -> Bool {
        let trimmed = piece.drop { $0 == " " }
        guard let equals = trimmed.firstIndex(of: "=") else {
            return false
        }
        let name = trimmed[..<equals]
        return !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0) }
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

    private static func decode(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// The top-level members of a JSON object body, found without decoding the rest of it, so that a redacted value is
/// replaced and every other byte of the body stays as it was.
package enum HARJSON {
    /// `body` with the value of every top-level key that `redaction` names replaced by `"REDACTED"`, and the secret
    /// values replaced (a string's text, another value's JSON); `nil` when the body is not a JSON object or names no
    /// such key.
    package static func redacting(_ body: Data, _ redaction: Redaction) -> (body: Data, secrets: [String])? {
        let bytes = [UInt8](body)
        guard let members = members(bytes) else {
            return nil
        }
        let redacted = members.filter { redaction.redactsQueryItem($0.key) }
        guard !redacted.isEmpty else {
            return nil
        }
        var result = bytes
        let placeholder = Array("\"\(Redaction.placeholder)\"".utf8)
        for member in redacted.reversed() {
            result.replaceSubrange(member.value, with: placeholder)
        }
        let secrets = redacted.map { text(of: bytes[$0.value]) }.filter { $0 != Redaction.placeholder }
        return (Data(result), secrets)
    }

    /// Each top-level key, decoded, with the byte range of its value; `nil` when `bytes` is not a JSON object.
    /// Nesting is skipped with a depth count, not recursion, so no body can exhaust the stack.
    static func members(_ bytes: [UInt8]) -> [(key: String, value: Range<Int>)]? {
        var index = skippingSpace(bytes, from: 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            return nil
        }
        index = skippingSpace(bytes, from: index + 1)
        var members: [(key: String, value: Range<Int>)] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            return members
        }
        while true {
            guard let keyEnd = stringEnd(bytes, from: index) else {
                return nil
            }
            let key = text(of: bytes[index..<keyEnd])
            index = skippingSpace(bytes, from: keyEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                return nil
            }
            let valueStart = skippingSpace(bytes, from: index + 1)
            guard let valueEnd = valueEnd(bytes, from: valueStart) else {
                return nil
            }
            members.append((key, valueStart..<valueEnd))
            index = skippingSpace(bytes, from: valueEnd)
            guard index < bytes.count else {
                return nil
            }
            if bytes[index] == UInt8(ascii: "}") {
                return members
            }
            guard bytes[index] == UInt8(ascii: ",") else {
                return nil
            }
            index = skippingSpace(bytes, from: index + 1)
        }
    }

    /// A string's text, decoded; any other value's JSON as it is.
    private static func text(of value: ArraySlice<UInt8>) -> String {
        guard value.first == UInt8(ascii: "\""), value.count >= 2 else {
            return String(decoding: value, as: UTF8.self)
        }
        let inner = value.dropFirst().dropLast()
        guard inner.contains(UInt8(ascii: "\\")) else {
            return String(decoding: inner, as: UTF8.self)
        }
        do {
            let decoded = try JSONSerialization.jsonObject(with: Data(value), options: .fragmentsAllowed)
            return decoded as? String ?? String(decoding: inner, as: UTF8.self)
        } catch {
            // An escape JSON does not allow: the text as written is what to look for.
            return String(decoding: inner, as: UTF8.self)
        }
    }

    private static func skippingSpace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            index += 1
        }
        return index
    }

    /// The index after the closing quote of the string that starts at `start`.
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") else {
            return nil
        }
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index after the value that starts at `start`: a string, an object or array (to its matching bracket),
    /// or a number or literal (to the next delimiter).
    private static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else {
            return nil
        }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(bytes, from: index) else {
                        return nil
                    }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        return index + 1
                    }
                default:
                    break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            while index < bytes.count,
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(
                    bytes[index])
            {
                index += 1
            }
            return index > start ? index : nil
        }
    }
}
