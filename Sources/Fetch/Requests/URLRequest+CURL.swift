import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `curl` commands for logs and bug reports, with secrets hidden.
enum CURLCommand {
    /// The command that sends `urlRequest`, one option per line, with the values `redaction` redacts replaced by
    /// ``Redaction/placeholder``.
    static func make(for urlRequest: URLRequest, redaction: Redaction) -> String {
        urlRequest.curlCommand(redaction)
    }
}

extension URLRequest {
    fileprivate func curlCommand(_ redaction: Redaction) -> String {
        let method = httpMethod ?? "GET"
        let methodOption = method == "GET" ? "" : "-X \(Self.shellQuoted(method)) "
        var parts = ["curl \(methodOption)\(Self.shellQuoted(redactedURL(redaction)))"]
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            parts.append(
                "-H \(Self.shellQuoted("\(name): \(redaction.redactsHeader(name) ? Redaction.placeholder : value)"))")
        }
        if let body = httpBody, !body.isEmpty {
            if let text = String(data: body, encoding: .utf8), !text.contains("\0") {
                parts.append("--data-binary \(Self.shellQuoted(text))")
            } else {
                parts.append("--data-binary @body.bin  # \(body.count) bytes of binary data")
            }
        } else if httpBodyStream != nil {
            parts.append("--data-binary @body  # streamed body")
        }
        return parts.joined(separator: " \\\n  ")
    }

    private func redactedURL(_ redaction: Redaction) -> String {
        guard let url else {
            return ""
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.percentEncodedQueryItems,
            items.contains(where: { redaction.redactsQueryItem(Self.decoded($0.name)) })
        else {
            return url.absoluteString
        }
        components.percentEncodedQueryItems = items.map { item in
            redaction.redactsQueryItem(Self.decoded(item.name))
                ? URLQueryItem(name: item.name, value: Redaction.placeholder) : item
        }
        return components.string ?? url.absoluteString
    }

    /// A percent-encoded query item name, decoded when it can be.
    private static func decoded(_ name: String) -> String {
        name.removingPercentEncoding ?? name
    }

    /// `text` in single quotes for a POSIX shell, with embedded single quotes closed, escaped and reopened.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

extension Request {
    /// A `curl` command that sends this request, for logs and bug reports, with secrets hidden.
    ///
    /// ```text
    /// curl -X POST 'https://api.example.com/login' \
    ///   -H 'Authorization: REDACTED' \
    ///   -H 'Content-Type: application/json' \
    ///   --data-binary '{"user":"ada"}'
    /// ```
    ///
    /// - Parameter redaction: The secrets to hide besides those ``Redaction`` always hides (`Authorization`,
    ///   `Cookie`, `token` query parameters, …). The default adds none.
    /// - Returns: The command, one option per line.
    /// - Throws: The error of ``makeURLRequest()`` when the request cannot be built.
    public func curlCommand(redacting redaction: Redaction = []) throws -> String {
        CURLCommand.make(for: try makeURLRequest(), redaction: redaction)
    }
}
