import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `recording(to:redacting:)` over a real `Session`: every call becomes an entry of a valid HAR file, with no
/// secret in it, and the file answers the same calls offline.
@Suite struct RecordingMiddlewareTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    private func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString).har")
    }

    @Test func recordsRealCallsIntoAValidFileWithoutSecretsThatReplaysOffline() async throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let token = "Bearer s3cr3t-t0k3n-\(UUID().uuidString)"
        let recorded = try makeSession().with(.record(to: file, redacting: ["X-API-Key"]))
        let user = TestRequest(server.url("/users/1"), headers: ["Authorization": token, "X-API-Key": "k3y-k3y-k3y"])
        let missing = TestRequest(server.url("/users/999"), headers: ["Authorization": token])
        let created = TestRequest(
            server.url("/echo/items?b=2&a=1"), method: .post, headers: ["Content-Type": "application/json"],
            body: Data(#"{"name":"Ada"}"#.utf8))

        let live: User = try await recorded.perform(user)
        let liveEcho: Echo = try await recorded.perform(created)
        await #expect(throws: APIError.self) {
            let _: User = try await recorded.perform(missing, errorParser: DecodableErrorParser<APIError>())
        }

        let bytes = try Data(contentsOf: file)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("s3cr3t-t0k3n"))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("k3y-k3y-k3y"))
        #expect(try HAR(contentsOf: file).log.entries.count == 3)
        let verdict = try HARValidator.check(file)
        #expect(verdict.isValid, "\(verdict.output)")

        let offline = try MockPerformer(replaying: file)
        let replayed = Captured<Result<User, any Error>>()
        offline.perform(user, completion: replayed.capture)
        #expect(try replayed.value?.get() == live)
        let replayedEcho = Captured<Result<Echo, any Error>>()
        offline.perform(created, completion: replayedEcho.capture)
        #expect(try replayedEcho.value?.get().body == liveEcho.body)
        let notFound = Captured<Result<User, any Error>>()
        offline.perform(missing, errorParser: DecodableErrorParser<APIError>(), completion: notFound.capture)
        #expect(throws: APIError.self) { try notFound.value?.get() }
    }

    @Test func concurrentCallsEachBecomeOneEntry() async throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let recorded = try MockPerformer { _ in .json(#"{"ok":true}"#) }.with(.record(to: file))
        let done = Captured<Result<Data, any Error>>()
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            recorded.perform(TestRequest("http://example.test/items/\(index)"), completion: done.capture)
        }
        #expect(try done.values.allSatisfy { try $0.get().isEmpty == false })
        #expect(try HAR(contentsOf: file).log.entries.count == 200)
        #expect(try HARValidator.check(file).isValid)
    }

    @Test func aTokenHandedOutBeforeItIsSentIsScrubbedFromTheEarlierEntryToo() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let token = "t0k3n-\(UUID().uuidString)"
        let mock = MockPerformer(routes: [
            // A key that names no secret: the token is not known as one until a call sends it.
            .post("/login", .json(#"{"session": "\#(token)"}"#)),
            .get("/me", .json(#"{"id": 1}"#)),
        ])
        let recorded = try mock.with(.record(to: file))
        let login = Captured<Result<Data, any Error>>()
        recorded.perform(TestRequest("http://example.test/login", method: .post), completion: login.capture)
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains(token), "not yet known as secret")
        let me = Captured<Result<Data, any Error>>()
        recorded.perform(
            TestRequest("http://example.test/me", headers: ["Authorization": "Bearer \(token)"]), completion: me.capture
        )
        #expect(try me.value?.get().isEmpty == false)
        #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains(token))
        #expect(try HAR(contentsOf: file).log.entries.count == 2)
    }

    /// Through a real server that echoes what it received: a cookie it set (which a `URLSession` jar sends back
    /// unseen by the recorder), a cookie the request set, a nested JSON password and a token in an array.
    @Test(arguments: SessionTransport.allCases)
    func secretsAServerEchoesNeverReachTheFile(on transport: SessionTransport) async throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let id = UUID().uuidString.prefix(8)
        let setCookie = "set-cookie-\(id)"
        let sentCookie = "sent-cookie-\(id)"
        let password = "nested-password-\(id)"
        let token = "array-token-\(id)"
        let recorded = try makeSession(transport).with(.record(to: file))
        var components = try #require(
            URLComponents(url: server.url("/cacheable/har-cookie-\(id)"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "cookie", value: "sid=\(setCookie); Path=/")]
        let _: Response = try await recorded.perform(TestRequest(try #require(components.url)))
        let login = TestRequest(
            server.url("/echo/login"), method: .post,
            headers: ["Content-Type": "application/json", "Cookie": "session=\(sentCookie)"],
            body: Data(#"{"user": {"name": "ada", "password": "\#(password)"}, "list": [{"token": "\#(token)"}]}"#.utf8)
        )
        let echo: Echo = try await recorded.perform(login)
        #expect(echo.body.contains(password), "the server echoes the password")
        // The request's own cookie, or (over URLSession, until the jar stops overriding it) the one the server set.
        #expect(echo.headers["cookie"] != nil, "the server echoes a cookie")
        let after: Echo = try await recorded.perform(TestRequest(server.url("/echo/after")))

        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        for secret in [setCookie, sentCookie, password, token] {
            #expect(!text.contains(secret), "\(secret) is in the file")
        }
        #expect(text.contains("REDACTED"))
        if after.headers["cookie"]?.contains(setCookie) == true {
            // The jar sent it back: the echo was recorded, scrubbed.
            #expect(text.contains("/echo/after"))
        }
        #expect(try HAR(contentsOf: file).log.entries.count == 3)
        let verdict = try HARValidator.check(file)
        #expect(verdict.isValid, "\(verdict.output)")
    }

    @Test func aFileThatIsNotHARIsRefusedUpFront() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("[1, 2, 3]".utf8).write(to: file)
        #expect(throws: HARError.self) { try MockPerformer { _ in MockResponse(status: 200) }.with(.record(to: file)) }
    }
}
