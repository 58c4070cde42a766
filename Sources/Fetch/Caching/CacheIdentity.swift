import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whose a cached response is: a keyed hash of the credentials its request carried, which a private
/// ``ResponseCache`` puts in the key of every stored response, so that a response fetched with one user's credentials
/// is never served to a request with another's (or with none).
///
/// The credentials are what ``Redaction`` calls secrets: every header field it redacts (`Authorization`, `Cookie`,
/// `X-API-Key`, `X-Auth-Token`, …, and the names the cache was given), the user and password of the URL, and the
/// query parameters it redacts (`access_token`, `api_key`, …). The header fields make the owner's tag, the front of
/// the key; the URL's credentials are replaced in the key's URL by their tags, so that the key differs for other
/// URL credentials too.
///
/// The credentials themselves are never stored, in memory or on disk: the key holds their tags, and the request
/// header values kept for `Vary` matching hold each secret field's tag in place of its value.
///
/// **The tag.** PBKDF2-HMAC-SHA256 (RFC 8018) of the credential fields, with ``iterations`` rounds and a random
/// 32-byte salt of the store's: a memory cache draws one when it is made; a disk cache keeps one in its directory
/// (`.fetch-cache-salt`, 0600), so that its entries keep their owners across launches. Someone who reads the cache's
/// files without the salt cannot test a guessed password at all; with it, each guess costs the rounds, and a guess
/// tested against one directory says nothing of another's. A tag is worked out once per credential value and
/// process (the rounds cost about a millisecond), then remembered in memory.
final class CacheIdentity: Sendable {
    /// A request as the cache keeps it: its URL with the credentials in it tagged, its secret header fields
    /// tagged, and the owner's tag.
    struct Masked {
        /// The request's URL with its user info and the values of its secret query parameters replaced by tags.
        let url: String
        /// The request with the value of each secret header field replaced by its tag (its URL as it was).
        let request: URLRequest
        /// The tag of the secret header fields, or `nil` when the request carries none.
        let owner: String?
        /// Whether the request carries any credential: a secret header field, or one in its URL.
        let hasCredentials: Bool
    }

    /// The PBKDF2 rounds of a tag.
    static var iterations: Int { 1024 }
    /// The tags remembered, at most; past it they are forgotten and worked out again.
    private static var rememberedLimit: Int { 256 }
    /// The number of bytes of a salt.
    static var saltLength: Int { 32 }

    /// The names of the secret header fields and query parameters: ``Redaction``'s defaults and those added.
    let secrets: Redaction
    private let salt: [UInt8]
    /// The tags worked out, by the credential text they stand for (in memory only, as the requests hold it).
    private let remembered = Locked([String: String]())

    /// An identity keyed by `salt`, of the credentials `secrets` names.
    init(salt: [UInt8], secrets: Redaction = .default) {
        self.salt = salt
        self.secrets = secrets
    }

    /// An identity with a new random salt, for a cache whose entries do not outlive it.
    convenience init(secrets: Redaction = .default) {
        self.init(salt: Self.randomSalt(), secrets: secrets)
    }

    /// A new random salt, from the system's cryptographic generator.
    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `request` as the cache keeps it, or `nil` when it has no URL, or one whose credentials cannot be found
    /// (the cache then passes it on untouched).
    func masked(_ request: URLRequest) -> Masked? {
        guard let url = request.url, let maskedURL = maskedURL(url) else {
            return nil
        }
        let fields = secretFields(of: request)
        var maskedRequest = request
        for field in fields {
            maskedRequest.setValue("tag:" + tag(field.name + ":" + field.value), forHTTPHeaderField: field.name)
        }
        return Masked(
            url: maskedURL.text, request: maskedRequest, owner: tag(of: fields),
            hasCredentials: !fields.isEmpty || maskedURL.hadCredentials)
    }

    /// The tag of the secret header fields `request` carries, or `nil` when it carries none.
    func tag(for request: URLRequest) -> String? {
        tag(of: secretFields(of: request))
    }

    /// The tag of credentials given as header fields (names in any case; fields that are no secret are ignored), or
    /// `nil` when there are none: the same tag as for a request that carries exactly these secret fields.
    func tag(for fields: [HTTPHeader]) -> String? {
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        for field in fields {
            request.addValue(field.value, forHTTPHeaderField: field.name)  // repeated names joined as a request's are
        }
        return tag(for: request)
    }

    /// The header fields of `request` that ``secrets`` names, by name in lowercase, in the order of their names.
    private func secretFields(of request: URLRequest) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for name in (request.allHTTPHeaderFields ?? [:]).keys where secrets.redactsHeader(name) {
            if let value = request.value(forHTTPHeaderField: name) {
                fields.append((name.lowercased(), value))
            }
        }
        return fields.sorted { $0.name < $1.name }
    }

    /// `url`'s text with its user info replaced by `tag:<tag>` and the value of each secret query parameter by
    /// `tag:<tag>`, and whether it had any; `url`'s text itself when it has none. `nil` when `url` has a `@` or a
    /// query but cannot be taken apart.
    func maskedURL(_ url: URL) -> (text: String, hadCredentials: Bool)? {
        let text = url.absoluteString
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") }) else {
            return (text, false)  // neither user info nor a query: nothing to take apart
        }
        guard var components = URLComponents(string: text) else {
            return nil
        }
        var changed = false
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            let userInfo = (components.percentEncodedUser ?? "") + ":" + (components.percentEncodedPassword ?? "")
            components.percentEncodedUser = "tag"
            components.percentEncodedPassword = tag("url-user-info:" + userInfo)
            changed = true
        }
        if let query = components.percentEncodedQuery {
            var items = query.split(separator: "&", omittingEmptySubsequences: false).map(String.init)
            for index in items.indices {
                let parts = items[index].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[1].isEmpty, secrets.redactsQueryItem(Self.decoded(parts[0])) else {
                    continue
                }
                items[index] = parts[0] + "=tag:" + tag("query:" + parts[0] + "=" + parts[1])
                changed = true
            }
            if changed {
                components.percentEncodedQuery = items.joined(separator: "&")
            }
        }
        guard changed else {
            return (text, false)
        }
        guard let masked = components.string else {
            return nil
        }
        return (masked, true)
    }

    /// A query parameter's name as ``Redaction`` matches it: `+` as a space, then percent-decoded.
    private static func decoded(_ name: Substring) -> String {
        let spaced = name.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The tag of `fields` together (lowercase names, in order), or `nil` for none.
    private func tag(of fields: [(name: String, value: String)]) -> String? {
        var text = ""
        for (name, value) in fields {
            text += name + ":" + value + "\n"
        }
        return text.isEmpty ? nil : tag(text)
    }

    /// The tag of `text`: 32 hexadecimal digits (128 bits) of its PBKDF2 with the salt.
    private func tag(_ text: String) -> String {
        if let known = remembered.withLock({ $0[text] }) {
            return known
        }
        let digest = Self.pbkdf2(password: Array(text.utf8), salt: salt, iterations: Self.iterations)
        let tag = SHA256.hex(Array(digest.prefix(16)))
        remembered.withLock { remembered in
            if remembered.count >= Self.rememberedLimit {
                remembered.removeAll()
            }
            remembered[text] = tag
        }
        return tag
    }

    /// The first 32-byte block of PBKDF2-HMAC-SHA256 (RFC 8018 §5.2).
    static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        let mac = HMAC(key: password)
        var block = mac.authenticate(salt + [0, 0, 0, 1])
        var result = block
        for _ in 1..<max(1, iterations) {
            block = mac.authenticate(block)
            for index in result.indices {
                result[index] ^= block[index]
            }
        }
        return result
    }
}

/// HMAC-SHA256 (RFC 2104) under one key, with the hash states after the padded keys worked out once, so that each
/// message costs two compressions more than its length.
struct HMAC {
    private var inner = SHA256()
    private var outer = SHA256()

    init(key: [UInt8]) {
        var block = key.count > 64 ? SHA256.hash(Data(key)) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update($0) }
        block.map { $0 ^ 0x5c }.withUnsafeBytes { outer.update($0) }
    }

    /// The MAC of `message`.
    func authenticate(_ message: [UInt8]) -> [UInt8] {
        var inner = inner
        message.withUnsafeBytes { inner.update($0) }
        var outer = outer
        inner.finalize().withUnsafeBytes { outer.update($0) }
        return outer.finalize()
    }
}

/// The key a response is stored under: its URL (with the credentials in it tagged, see
/// ``CacheIdentity/maskedURL(_:)``), and for a private cache the tag of the secret header fields it was fetched with,
/// as `<tag>|<URL>` (a URL cannot start so: `|` is not a scheme's character).
enum CacheKey {
    /// The digits of a tag.
    static var tagDigits: Int { 32 }

    /// The key for `url` fetched with the credentials of `tag` (`nil`: none, or a shared cache).
    static func make(url: String, identity tag: String?) -> String {
        tag.map { $0 + "|" + url } ?? url
    }

    /// The prefix of every key of `tag`'s responses.
    static func prefix(of tag: String) -> String {
        tag + "|"
    }

    /// The URL in `key`: what follows its tag, or all of it.
    static func url(in key: String) -> Substring {
        tag(in: key) == nil ? Substring(key) : key.dropFirst(tagDigits + 1)
    }

    /// The tag in `key`, or `nil` for a key without one.
    static func tag(in key: String) -> Substring? {
        let utf8 = key.utf8
        guard utf8.count > tagDigits, utf8[utf8.index(utf8.startIndex, offsetBy: tagDigits)] == UInt8(ascii: "|")
        else {
            return nil
        }
        let tag = key.prefix(tagDigits)
        guard tag.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        return tag
    }
}
