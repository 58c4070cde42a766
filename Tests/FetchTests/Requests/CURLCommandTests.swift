import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct CURLCommandTests {
    @Test func describesMethodURLHeadersAndBodyWithSecretsRedacted() throws {
        let request = TestRequest(
            "https://api.example.com/login",
            method: .post,
            headers: [
                "Authorization": "Bearer s3cr3t", "Cookie": "session=abc", "Proxy-Authorization": "Basic eA==",
                "Content-Type": "application/json",
            ],
            body: Data(#"{"user":"ada"}"#.utf8)
        )
        let command = try request.curlCommand()
        #expect(
            command == """
                curl -X 'POST' 'https://api.example.com/login' \\
                  -H 'Authorization: <redacted>' \\
                  -H 'Content-Type: application/json' \\
                  -H 'Cookie: <redacted>' \\
                  -H 'Proxy-Authorization: <redacted>' \\
                  --data-binary '{"user":"ada"}'
                """
        )
        #expect(!command.contains("s3cr3t"))
    }

    @Test func redactsConfiguredHeadersAndQueryItemsCaseInsensitively() throws {
        let request = TestRequest("https://api.example.com/items?api_key=k3y&page=2", headers: ["X-API-Key": "k3y"])
        let command = try request.curlCommand(redacting: ["x-api-key", "API_KEY"])
        // Foundation may normalise the case of header names (X-Api-Key on Linux).
        #expect(
            command.lowercased()
                == "curl 'https://api.example.com/items?api_key=%3credacted%3e&page=2' \\\n  -h 'x-api-key: <redacted>'"
        )
    }

    @Test(arguments: [Set<String>(), ["X-API-Key"], ["Authorization"], ["x-api-key", "token"]])
    func namesPassedAddToTheSecretsAndNeverShowThem(names: Set<String>) throws {
        let request = TestRequest(
            "https://api.example.com/me",
            headers: [
                "Authorization": "Bearer t0k3n", "Cookie": "session=c00k1e", "Proxy-Authorization": "Basic pr0xy",
                "X-API-Key": "k3y",
            ])
        let command = try request.curlCommand(redacting: names)
        for secret in ["t0k3n", "c00k1e", "pr0xy"] {
            #expect(!command.contains(secret), "\(secret) leaked with names \(names):\n\(command)")
        }
        #expect(command.contains("k3y") == !names.contains { $0.lowercased() == "x-api-key" })
    }

    @Test func aSecretIsShownOnlyWhenRevealedByName() throws {
        let request = TestRequest("https://api.example.com/me", headers: ["Authorization": "Bearer t0k3n"])
        #expect(try !request.curlCommand(Redaction(adding: ["Authorization"])).contains("t0k3n"))
        #expect(try request.curlCommand(Redaction(revealing: ["authorization"])).contains("Bearer t0k3n"))
        #expect(Redaction(revealing: ["Authorization"]).hides("Cookie"))
    }

    @Test func quotesSingleQuotesForTheShell() throws {
        let request = TestRequest("https://api.example.com/notes", method: .put, body: Data("it's".utf8))
        #expect(try request.curlCommand().hasSuffix(#"--data-binary 'it'\''s'"#))
    }

    @Test func describesBinaryBodiesBySize() throws {
        let request = TestRequest("https://api.example.com/upload", method: .post, body: Data([0, 1, 2]))
        #expect(try request.curlCommand().hasSuffix("--data-binary @body.bin  # 3 bytes of binary data"))
    }
}
