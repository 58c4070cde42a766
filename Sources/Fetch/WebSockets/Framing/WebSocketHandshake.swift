import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client's side of the opening handshake (RFC 6455 §4.1): the request head it sends, and the check of the
/// server's `101 Switching Protocols`.
package enum WebSocketHandshake {
    /// The GUID RFC 6455 §1.3 appends to the key before hashing it into `Sec-WebSocket-Accept`.
    private static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A fresh `Sec-WebSocket-Key`: the Base64 of 16 random bytes (RFC 6455 §4.1).
    package static func makeKey() -> String {
        var generator = SystemRandomWords(prefetching: 2)
        let bytes = (0..<2).flatMap { _ in
            let word: UInt64 = generator.next()
            return (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        return Data(bytes).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server must answer `key` with: the Base64 of SHA-1(key + the RFC's GUID).
    package static func accept(forKey key: String) -> String {
        Data(SHA1.hash(Data((key + acceptGUID).utf8))).base64EncodedString()
    }

    /// The bytes of the opening handshake for `request`.
    ///
    /// `GET <path?query> HTTP/1.1`, `Host` (the request's own `Host` field if it has one, else the URL's host with
    /// the port when it is not the scheme's default), the request's other header fields (as it declared them,
    /// apart and in order, where `request` holds them combined; the others by name), then `Upgrade: websocket`, `Connection: Upgrade` and
    /// `Sec-WebSocket-Version: 13` unless the request already has them, `Sec-WebSocket-Key: key` in place of any the
    /// request has, and the blank line.
    ///
    /// - Parameters:
    ///   - request: The handshake request, with an absolute `ws`, `wss`, `http` or `https` URL.
    ///   - declaredFields: The fields the request declared (``Request/headers``); the default is none.
    ///   - key: The key, from ``makeKey()``.
    ///   - extensions: The `Sec-WebSocket-Extensions` offer (``PerMessageDeflate/offer``), written after the
    ///     version, or nil (the default) for none.
    /// - Returns: The head, CRLF line ends, UTF-8.
    /// - Throws: ``FetchError/invalidRequest(_:)`` naming the request for a URL without a host or of another
    ///   scheme, or a header name or value that cannot be sent (CR, LF or NUL in it, or a name that is no token).
    package static func requestHead(
        for request: URLRequest, declaring declaredFields: HeaderFields = [:], key: String, extensions: String? = nil
    ) throws -> Data {
        let target = "GET \(request.url?.absoluteString ?? "(no URL)")"
        guard let url = request.url,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw FetchError.invalidRequest("\(target): a WebSocket URL needs a host, such as ws://example.com/chat")
        }
        let scheme = components.scheme?.lowercased() ?? ""
        let defaultPort: Int
        switch scheme {
        case "ws", "http": defaultPort = 80
        case "wss", "https": defaultPort = 443
        default:
            throw FetchError.invalidRequest(
                "\(target): a WebSocket URL's scheme is ws, wss, http or https, not \(scheme)")
        }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery {
            path += "?" + query
        }
        guard !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw FetchError.invalidRequest("\(target): the path has a space or a control character")
        }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port, port != defaultPort {
            authority += ":\(port)"
        }
        let fields = Exchange.joiningCookies(Exchange.fields(declared: declaredFields, in: request)).map {
            (key: $0.name, value: $0.value)
        }
        for (name, value) in fields {
            try HeaderValidation.validate(name: name, value: value, in: target)
        }
        func has(_ name: String) -> Bool {
            fields.contains { HeaderName.equal($0.key, name) }
        }
        var lines = ["GET \(path) HTTP/1.1"]
        lines.append("Host: " + (fields.first { HeaderName.equal($0.key, "Host") }?.value ?? authority))
        for (name, value) in fields
        where !HeaderName.equal(name, "Host") && !HeaderName.equal(name, "Sec-WebSocket-Key") {
            lines.append("\(name): \(value)")
        }
        if !has("Upgrade") {
            lines.append("Upgrade: websocket")
        }
        if !has("Connection") {
            lines.append("Connection: Upgrade")
        }
        lines.append("Sec-WebSocket-Key: \(key)")
        if !has("Sec-WebSocket-Version") {
            lines.append("Sec-WebSocket-Version: 13")
        }
        if let extensions {
            lines.append("Sec-WebSocket-Extensions: \(extensions)")
        }
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Whether the fields of a `101` head agree to the upgrade that `key` asked for (RFC 6455 §4.1).
    ///
    /// - Parameters:
    ///   - headers: The `101` response's fields.
    ///   - key: The `Sec-WebSocket-Key` the request sent.
    ///   - offeredProtocols: The request's `Sec-WebSocket-Protocol` field (a comma-separated list), or nil when it
    ///     asked for no subprotocol.
    ///   - checksExtensions: Whether an accepted extension is a problem (none was asked for); false when the
    ///     caller reads `Sec-WebSocket-Extensions` itself (``PerMessageDeflate/negotiate(answer:offered:)``).
    /// - Returns: nil when `Upgrade` is `websocket` (in any case), `Connection` has the `upgrade` token,
    ///   `Sec-WebSocket-Accept` is ``accept(forKey:)``, no extension was accepted (unless `checksExtensions` is
    ///   false) and the subprotocol, if any, is one the request offered (see
    ///   ``problem(withSubprotocol:offered:)``); otherwise the reason in words, naming what came back (for
    ///   ``FetchError/webSocketHandshakeFailed(reason:_:)``).
    package static func problem(
        withUpgrade headers: HeaderFields, key: String, offeredProtocols: String? = nil, checksExtensions: Bool = true
    ) -> String? {
        guard let upgrade = headers["Upgrade"] else {
            return "the 101 response has no Upgrade field (expected Upgrade: websocket)"
        }
        guard trimmed(upgrade).lowercased() == "websocket" else {
            return "the 101 response upgrades to \(upgrade.debugDescription), not websocket"
        }
        guard let connection = headers["Connection"] else {
            return "the 101 response has no Connection field (expected Connection: Upgrade)"
        }
        guard connection.split(separator: ",").contains(where: { trimmed($0).lowercased() == "upgrade" }) else {
            return "the 101 response's Connection field is \(connection.debugDescription), without the upgrade token"
        }
        let expected = accept(forKey: key)
        guard let answer = headers["Sec-WebSocket-Accept"] else {
            return "the 101 response has no Sec-WebSocket-Accept field (expected \(expected))"
        }
        guard trimmed(answer) == expected else {
            return "the 101 response's Sec-WebSocket-Accept is \(answer.debugDescription), expected \(expected)"
        }
        if checksExtensions, let extensions = headers["Sec-WebSocket-Extensions"], !trimmed(extensions).isEmpty {
            return "the 101 response accepts the extension \(extensions.debugDescription), which was not asked for"
        }
        return problem(withSubprotocol: headers["Sec-WebSocket-Protocol"], offered: offeredProtocols)
    }

    /// Whether the subprotocol a server chose is one the client offered (RFC 6455 §4.1: a subprotocol that was not
    /// requested fails the connection).
    ///
    /// - Parameters:
    ///   - answer: The `101` response's `Sec-WebSocket-Protocol` (its values joined with `, ` when repeated), or nil
    ///     (or empty) when the server chose none, which is always allowed.
    ///   - offered: The request's `Sec-WebSocket-Protocol` field, a comma-separated list, or nil for none.
    /// - Returns: nil when the server chose none, or exactly one of the offered names (compared case-sensitively);
    ///   otherwise the reason in words, naming what was offered and what came back.
    package static func problem(withSubprotocol answer: String?, offered: String?) -> String? {
        guard let answer, !trimmed(answer).isEmpty else {
            return nil
        }
        let offeredNames = (offered ?? "").split(separator: ",").map { trimmed($0) }.filter { !$0.isEmpty }
        let offering =
            offeredNames.isEmpty
            ? "the request offered none"
            : "the request offered \(offeredNames.joined(separator: ", ").debugDescription)"
        let chosen = trimmed(answer)
        guard !chosen.contains(",") else {
            return "the 101 response names more than one subprotocol, \(answer.debugDescription) (\(offering))"
        }
        guard offeredNames.contains(chosen) else {
            return
                "the 101 response chose the subprotocol \(answer.debugDescription), which was not offered (\(offering))"
        }
        return nil
    }

    /// `text` without the spaces and tabs around it (HTTP's optional whitespace).
    private static func trimmed(_ text: some StringProtocol) -> String {
        String(text).trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }
}
