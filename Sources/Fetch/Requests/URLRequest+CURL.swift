import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `curl` commands for logs and bug reports, with secrets hidden.
enum CURLCommand {
    /// The command that sends `urlRequest`, one option per line, with the values `redaction` hides replaced by
    /// `<redacted>`.
    static func make(for urlRequest: URLRequest, redaction: Redaction) -> String {
        urlRequest.curlCommand(isRedacted: redaction.hides)
    }
}

extension URLRequest {
    fileprivate func curlCommand(isRedacted: (String) -> Bool) -> String {
        let method = httpMethod ?? "GET"
        let methodOption = method == "GET" ? "" : "-X \(Self.shellQuoted(method)) "
        var parts = ["curl \(methodOption)\(Self.shellQuoted(redactedURL(isRedacted)))"]
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            parts.append("-H \(Self.shellQuoted("\(name): \(isRedacted(name) ? "<redacted>" : value)"))")
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

    private func redactedURL(_ isRedacted: (String) -> Bool) -> String {
        guard let url else {
            return ""
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.percentEncodedQueryItems, items.contains(where: { isRedacted($0.name) })
        else {
            return url.absoluteString
        }
        components.percentEncodedQueryItems = items.map { item in
            // Percent-encoded, as `percentEncodedQueryItems` traps on anything else.
            isRedacted(item.name) ? URLQueryItem(name: item.name, value: "%3Credacted%3E") : item
        }
        return components.string ?? url.absoluteString
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
    ///   -H 'Authorization: <redacted>' \
    ///   -H 'Content-Type: application/json' \
    ///   --data-binary '{"user":"ada"}'
    /// ```
    ///
    /// - Parameter names: Header fields and query items to hide besides ``Redaction/secrets``, which are always
    ///   hidden: your API-key headers and `token` query parameters.
    /// - Returns: The command, one option per line.
    /// - Throws: The error of ``makeURLRequest()`` when the request cannot be built.
    public func curlCommand(redacting names: Set<String> = []) throws -> String {
        try curlCommand(Redaction(adding: names))
    }

    /// A `curl` command that sends this request, with the values `redaction` hides replaced by `<redacted>`.
    ///
    /// - Parameter redaction: What to hide; ``Redaction/init(adding:revealing:)`` is the only way to show one of
    ///   the ``Redaction/secrets``.
    /// - Returns: The command, one option per line.
    /// - Throws: The error of ``makeURLRequest()`` when the request cannot be built.
    public func curlCommand(_ redaction: Redaction) throws -> String {
        CURLCommand.make(for: try makeURLRequest(), redaction: redaction)
    }
}
