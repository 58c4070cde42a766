import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whose a cached response is: a keyed hash of the credentials its request carried (`Authorization`, `Cookie`,
/// `Proxy-Authorization`), which a private ``ResponseCache`` puts in the key of every stored response, so that a
/// response fetched with one user's credentials is never served to a request with another's (or with none).
///
/// The credentials themselves are never stored, in memory or on disk: the key holds their tag, and the request
/// header values kept for `Vary` matching hold each credential field's tag in place of its value.
///
/// **The tag.** PBKDF2-HMAC-SHA256 (RFC 8018) of the credential fields, with ``iterations`` rounds and a random
/// 32-byte salt of the store's: a memory cache draws one when it is made; a disk cache keeps one in its directory
/// (`.fetch-cache-salt`, 0600), so that its entries keep their owners across launches. Someone who reads the cache's
/// files without the salt cannot test a guessed password at all; with it, each guess costs the rounds, and a guess
/// tested against one directory says nothing of another's. A tag is worked out once per credential value and
/// process (the rounds cost about a millisecond), then remembered in memory.
final class CacheIdentity: Sendable {
    /// The request header fields that identify whose a response is.
    static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]
    /// The PBKDF2 rounds of a tag.
    static var iterations: Int { 1024 }
    /// The tags remembered, at most; past it they are forgotten and worked out again.
    private static var rememberedLimit: Int { 256 }
    /// The number of bytes of a salt.
    static var saltLength: Int { 32 }

    private let salt: [UInt8]
    /// The tags worked out, by the credential text they stand for (in memory only, as the requests hold it).
    private let remembered = Locked([String: String]())

    /// An identity keyed by `salt`.
    init(salt: [UInt8]) {
        self.salt = salt
    }

    /// An identity with a new random salt, for a cache whose entries do not outlive it.
    convenience init() {
        self.init(salt: Self.randomSalt())
    }

    /// A new random salt, from the system's cryptographic generator.
    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Whether `request` carries any credential field.
    static func hasCredentials(_ request: URLRequest) -> Bool {
        credentialFields.contains { request.value(forHTTPHeaderField: $0) != nil }
    }

    /// The tag of the credentials `request` carries, or `nil` when it carries none.
    func tag(for request: URLRequest) -> String? {
        tag(of: Self.credentialFields.map { ($0, request.value(forHTTPHeaderField: $0)) })
    }

    /// The tag of credentials given as header fields (names in any case; other fields are ignored), or `nil` when
    /// there are none: the same tag as for a request that carries exactly these credential fields.
    func tag(for fields: [HTTPHeader]) -> String? {
        tag(
            of: Self.credentialFields.map { name in
                (name, fields.last { HeaderName.equal($0.name, name) }?.value)
            })
    }

    /// `request` with the value of each credential field replaced by its tag, as the request a stored response
    /// keeps for `Vary` matching: a request with the same credentials matches it, and no credential is kept.
    func masked(_ request: URLRequest) -> URLRequest {
        var masked = request
        for name in Self.credentialFields {
            if let value = request.value(forHTTPHeaderField: name) {
                masked.setValue("tag:" + tag(name.lowercased() + ":" + value), forHTTPHeaderField: name)
            }
        }
        return masked
    }

    private func tag(of fields: [(name: String, value: String?)]) -> String? {
        var text = ""
        for case (let name, let value?) in fields {
            text += name.lowercased() + ":" + value + "\n"
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

/// The key a response is stored under: its URL, and for a private cache the tag of the credentials it was fetched
/// with, as `<tag>|<URL>` (a URL cannot start so: `|` is not a scheme's character).
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
