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
                  -H 'Authorization: REDACTED' \\
                  -H 'Content-Type: application/json' \\
                  -H 'Cookie: REDACTED' \\
                  -H 'Proxy-Authorization: REDACTED' \\
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
                == "curl 'https://api.example.com/items?api_key=redacted&page=2' \\\n  -h 'x-api-key: redacted'"
        )
    }

    @Test(arguments: [[], ["X-API-Key"], ["Authorization"], ["x-api-key", "token"]] as [[String]])
    func namesPassedAddToTheSecretsAndNeverShowThem(names: [String]) throws {
        let request = TestRequest(
            "https://api.example.com/me",
            headers: [
                "Authorization": "Bearer t0k3n", "Cookie": "session=c00k1e", "Proxy-Authorization": "Basic pr0xy",
                "X-API-Key": "k3y",
            ])
        let command = try request.curlCommand(redacting: Redaction(headers: names, queryItems: names))
        // X-API-Key is one of the secrets always redacted, as in recordings.
        for secret in ["t0k3n", "c00k1e", "pr0xy", "k3y"] {
            #expect(!command.contains(secret), "\(secret) leaked with names \(names):\n\(command)")
        }
    }

    @Test func showsWhatNoSecretNames() throws {
        let request = TestRequest("https://api.example.com/items?page=2", headers: ["X-Trace": "abc123"])
        let command = try request.curlCommand(redacting: ["X-Other"])
        #expect(command.contains("page=2"))
        #expect(command.lowercased().contains("x-trace: abc123"))
    }

    @Test func redactsWhatARecordingRedactsWithTheSamePlaceholder() throws {
        let request = TestRequest(
            "https://api.example.com/me?access_token=qu3ry&page=1",
            headers: ["X-Auth-Token": "t0k3n", "X-Client-Secret": "s3cr3t", "X-API-Key": "k3y"])
        let command = try request.curlCommand()
        for secret in ["t0k3n", "s3cr3t", "k3y", "qu3ry"] {
            #expect(!command.contains(secret), "\(secret) leaked:\n\(command)")
        }
        #expect(command.contains("access_token=\(Redaction.placeholder)&page=1"))
        #expect(command.lowercased().contains("x-auth-token: \(Redaction.placeholder.lowercased())"))
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
