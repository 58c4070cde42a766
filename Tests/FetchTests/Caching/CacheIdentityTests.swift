import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``CacheIdentity``: the tag of a request's credentials is PBKDF2-HMAC-SHA256 with the store's salt, the same for
/// the same credentials however they are given, different for other credentials or another salt, and masking keeps
/// no credential.
@Suite struct CacheIdentityTests {
    static func hex(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }

    @Test func hmacAndPBKDF2MatchTheirPublishedValues() {
        // RFC 2104 HMAC-SHA256 of the pangram under "key", and under a key longer than a block.
        let pangram = Array("The quick brown fox jumps over the lazy dog".utf8)
        #expect(
            Self.hex(HMAC(key: Array("key".utf8)).authenticate(pangram))
                == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        #expect(
            Self.hex(HMAC(key: [UInt8](repeating: UInt8(ascii: "k"), count: 100)).authenticate(Array("msg".utf8)))
                == "bd56a1782c2830e8abc6ed866a57a1230661e650b84c62f7ee3accc5fa5af491")
        // RFC 7914 §11's PBKDF2-HMAC-SHA256 vector (first block), and 4096 rounds as Python's hashlib gives them.
        #expect(
            Self.hex(CacheIdentity.pbkdf2(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1))
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
        #expect(
            Self.hex(
                CacheIdentity.pbkdf2(password: Array("password".utf8), salt: Array("salt".utf8), iterations: 4096))
                == "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a")
    }

    @Test func theTagDependsOnTheCredentialsAndTheSaltOnly() throws {
        let salt = [UInt8](repeating: 7, count: CacheIdentity.saltLength)
        let identity = CacheIdentity(salt: salt)
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/me")))
        #expect(identity.tag(for: request) == nil)
        request.setValue("Bearer a", forHTTPHeaderField: "authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")

        let tag = try #require(identity.tag(for: request))
        #expect(tag.utf8.count == CacheKey.tagDigits)
        #expect(identity.tag(for: [.authorization(bearerToken: "a"), .accept("text/plain")]) == tag)
        #expect(CacheIdentity(salt: salt).tag(for: request) == tag, "the same salt gives the same tag")
        #expect(CacheIdentity().tag(for: request) != tag, "another salt another")
        #expect(identity.tag(for: [.authorization(bearerToken: "b")]) != tag)
        #expect(identity.tag(for: [.authorization(bearerToken: "a"), HTTPHeader(name: "Cookie", value: "c=1")]) != tag)
        #expect(CacheKey.tag(in: CacheKey.make(url: "https://api.example.com/me", identity: tag)) == Substring(tag))
        #expect(CacheKey.tag(in: "https://api.example.com/me") == nil)
    }

    @Test func maskingReplacesEachSecretHeaderFieldByItsTag() throws {
        let identity = CacheIdentity(secrets: ["X-Tenant"])
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/me")))
        let secrets = [
            "Authorization": "Bearer secret-token", "Cookie": "id=secret-cookie", "X-API-Key": "secret-key",
            "X-Auth-Token": "secret-auth", "X-Tenant": "secret-tenant",
        ]
        for (name, value) in secrets {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.setValue("en", forHTTPHeaderField: "Accept-Language")

        let masked = try #require(identity.masked(request))
        let again = try #require(identity.masked(request))

        var tags: Set<String> = []
        for name in secrets.keys {
            let value = try #require(masked.request.value(forHTTPHeaderField: name))
            #expect(value.hasPrefix("tag:") && !value.contains("secret"), "\(name)")
            #expect(again.request.value(forHTTPHeaderField: name) == value)
            tags.insert(value)
        }
        #expect(tags.count == secrets.count, "each field its own tag")
        #expect(masked.request.value(forHTTPHeaderField: "Proxy-Authorization") == nil)
        #expect(masked.request.value(forHTTPHeaderField: "Accept-Language") == "en")
        #expect(masked.hasCredentials)
        #expect(masked.url == "https://api.example.com/me")
        #expect(masked.owner == identity.tag(for: secrets.map { HTTPHeader(name: $0.key, value: $0.value) }))
        #expect(masked.owner != nil)
    }

    @Test(arguments: ["X-API-Key", "X-Auth-Token", "Api-Key", "X-Session-Id", "X-Client-Secret", "X-Tenant"])
    func everySecretHeaderFieldMakesTheOwnersTag(name: String) throws {
        let identity = CacheIdentity(secrets: ["X-Tenant"])
        var alice = URLRequest(url: try #require(URL(string: "https://api.example.com/me")))
        var bob = alice
        alice.setValue("alice", forHTTPHeaderField: name)
        bob.setValue("bob", forHTTPHeaderField: name)

        let aliceTag = try #require(identity.tag(for: alice))
        #expect(identity.tag(for: bob) != aliceTag)
        #expect(identity.tag(for: [HTTPHeader(name: name.lowercased(), value: "alice")]) == aliceTag)
        #expect(CacheIdentity().tag(for: URLRequest(url: try #require(URL(string: "https://a.test")))) == nil)
    }

    @Test func theURLsUserInfoAndSecretQueryValuesAreTaggedAndTheRestKept() throws {
        let identity = CacheIdentity(secrets: ["tenant"])
        func masked(_ text: String) throws -> CacheIdentity.Masked {
            let url = try #require(URL(string: text))
            return try #require(identity.masked(URLRequest(url: url)))
        }
        let plain = try masked("https://api.example.com/items?page=2&sort=name")
        #expect(plain.url == "https://api.example.com/items?page=2&sort=name")
        #expect(!plain.hasCredentials)
        #expect(plain.owner == nil)

        let alice = try masked("https://alice:pa55word@api.example.com/items?page=2&access_token=tok-alice&tenant=t1")
        let aliceAgain = try masked(
            "https://alice:pa55word@api.example.com/items?page=2&access_token=tok-alice&tenant=t1")
        let bob = try masked("https://alice:other@api.example.com/items?page=2&access_token=tok-alice&tenant=t1")
        let carol = try masked("https://alice:pa55word@api.example.com/items?page=2&access_token=tok-carol&tenant=t1")
        #expect(alice.hasCredentials)
        #expect(alice.owner == nil, "the owner's tag is of header fields; the URL's credentials are in the URL")
        #expect(alice.url == aliceAgain.url)
        #expect(alice.url != bob.url && alice.url != carol.url)
        for secret in ["alice", "pa55word", "tok-alice", "t1"] {
            #expect(!alice.url.contains(secret), "\(alice.url) holds \(secret)")
        }
        #expect(alice.url.hasPrefix("https://tag:"))
        #expect(alice.url.contains("@api.example.com/items?page=2&access_token=tag:"))
        #expect(alice.url.contains("&tenant=tag:"))
    }
}
