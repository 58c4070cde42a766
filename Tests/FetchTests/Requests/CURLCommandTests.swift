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

    @Test func quotesSingleQuotesForTheShell() throws {
        let request = TestRequest("https://api.example.com/notes", method: .put, body: Data("it's".utf8))
        #expect(try request.curlCommand().hasSuffix(#"--data-binary 'it'\''s'"#))
    }

    @Test func describesBinaryBodiesBySize() throws {
        let request = TestRequest("https://api.example.com/upload", method: .post, body: Data([0, 1, 2]))
        #expect(try request.curlCommand().hasSuffix("--data-binary @body.bin  # 3 bytes of binary data"))
    }
}
