import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct RedirectPolicyTests {
    func request(_ url: String, headers: [String: String] = [:]) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: url)))
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// The policy's own sensitive headers, and secrets of ``Redaction``'s one list that the policy does not name.
    let credentials = [
        "Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic x",
        "X-API-Key": "k", "Api-Key": "k2", "X-Session-Id": "s", "X-Auth-Token": "t", "X-Amz-Signature": "sig",
    ]

    @Test func aSameOriginRedirectKeepsCredentials() throws {
        let next = try request("https://api.example.com/new", headers: credentials)
        let decision = RedirectPolicy.default.decide(
            redirect: next,
            originalURL: try #require(URL(string: "https://api.example.com:443/old")),
            currentURL: try #require(URL(string: "https://api.example.com/old")),
            redirectsSoFar: 0,
            hasLeftOrigin: false
        )
        #expect(decision == .follow(next))
    }

    @Test(arguments: ["https://other.example.com/x", "https://api.example.com:8443/x", "http://api.example.com/x"])
    func aRedirectToAnotherOriginDropsCredentials(target: String) throws {
        let policy = RedirectPolicy(allowsInsecureRedirects: true)
        let decision = policy.decide(
            redirect: try request(target, headers: credentials.merging(["Accept": "text/plain"]) { $1 }),
            originalURL: try #require(URL(string: "https://api.example.com/old")),
            currentURL: try #require(URL(string: "https://api.example.com/old")),
            redirectsSoFar: 0,
            hasLeftOrigin: false
        )
        guard case .follow(let next) = decision else {
            Issue.record("expected .follow, got \(decision)")
            return
        }
        #expect(next.allHTTPHeaderFields == ["Accept": "text/plain"])
    }

    @Test func credentialsDoNotComeBackAfterLeavingTheOrigin() throws {
        let decision = RedirectPolicy.default.decide(
            redirect: try request("https://api.example.com/back", headers: credentials),
            originalURL: try #require(URL(string: "https://api.example.com/old")),
            currentURL: try #require(URL(string: "https://elsewhere.example.com/hop")),
            redirectsSoFar: 1,
            hasLeftOrigin: true
        )
        guard case .follow(let next) = decision else {
            Issue.record("expected .follow, got \(decision)")
            return
        }
        #expect(next.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func customSensitiveHeadersAreDroppedCaseInsensitivelyAndRedactionsSecretsAlways() throws {
        let policy = RedirectPolicy(sensitiveHeaders: ["x-tenant"])
        let headers = ["X-Tenant": "acme", "X-API-Key": "k", "Authorization": "Bearer t", "X-Trace": "kept"]
        let decision = policy.decide(
            redirect: try request("https://b.example.com/", headers: headers),
            originalURL: try #require(URL(string: "https://a.example.com/")),
            currentURL: try #require(URL(string: "https://a.example.com/")),
            redirectsSoFar: 0,
            hasLeftOrigin: false
        )
        guard case .follow(let next) = decision else {
            Issue.record("expected .follow, got \(decision)")
            return
        }
        #expect(next.allHTTPHeaderFields == ["X-Trace": "kept"])
    }

    @Test func anHTTPSToHTTPRedirectIsRefusedByDefault() throws {
        let decision = RedirectPolicy.default.decide(
            redirect: try request("http://api.example.com/login"),
            originalURL: try #require(URL(string: "https://api.example.com/login")),
            currentURL: try #require(URL(string: "https://api.example.com/login")),
            redirectsSoFar: 0,
            hasLeftOrigin: false
        )
        guard case .refuse(let reason) = decision else {
            Issue.record("expected .refuse, got \(decision)")
            return
        }
        #expect(reason.contains("https"))
    }

    @Test func theRedirectLimitIsConfigurable() throws {
        let policy = RedirectPolicy(maximumRedirects: 2)
        let url = try #require(URL(string: "https://a.example.com/"))
        let next = try request("https://a.example.com/next")
        #expect(
            policy.decide(redirect: next, originalURL: url, currentURL: url, redirectsSoFar: 1, hasLeftOrigin: false)
                == .follow(next))
        #expect(
            policy.decide(redirect: next, originalURL: url, currentURL: url, redirectsSoFar: 2, hasLeftOrigin: false)
                == .refuse(reason: "more than 2 redirects"))
        #expect(
            RedirectPolicy(maximumRedirects: 0).decide(
                redirect: next, originalURL: url, currentURL: url, redirectsSoFar: 0, hasLeftOrigin: false) == .stop)
    }
}

/// Redirects through `Session` against the loopback server, which answers on two origins: 127.0.0.1 and localhost.
@Suite struct SessionRedirectTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    func redirect(to target: URL) throws -> URL {
        var components = try #require(URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        return try #require(components.url)
    }

    let credentials: HeaderFields = [
        "Authorization": "Bearer secret-token", "Cookie": "session=s3cr3t", "X-Trace": "kept",
        // Not in the policy's sensitiveHeaders, but secrets of Redaction's list: they stay behind too.
        "X-API-Key": "k3y-k3y", "Api-Key": "k3y-2", "X-Session-Id": "s3ss10n", "X-Auth-Token": "t0k3n",
    ]

    /// The header fields of ``credentials`` that are secrets, lowercased as the echo reports them.
    let secretHeaders = ["authorization", "cookie", "x-api-key", "api-key", "x-session-id", "x-auth-token"]

    @Test(arguments: SessionTransport.allCases)
    func aRedirectToAnotherHostArrivesWithoutCredentials(on transport: SessionTransport) async throws {
        let session = try makeSession(transport)
        try await expectARedirectToAnotherHostArrivesWithoutCredentials(through: session)
    }

    /// URLSession only: the policy holds on `URLSession.shared`, whose delegate Fetch is not.
    @Test func aRedirectToAnotherHostArrivesWithoutCredentialsOnTheSharedURLSession() async throws {
        try await expectARedirectToAnotherHostArrivesWithoutCredentials(through: Session())
    }

    private func expectARedirectToAnotherHostArrivesWithoutCredentials(through session: Session) async throws {
        let request = TestRequest(try redirect(to: server.otherOriginURL("/echo/cross")), headers: credentials)
        let echo: Echo = try await session.perform(request)
        #expect(echo.path == "/echo/cross")
        #expect(echo.headers["host"]?.hasPrefix("localhost:") == true)
        for name in secretHeaders {
            #expect(echo.headers[name] == nil, "\(name) followed the redirect to another origin")
        }
        #expect(echo.headers["x-trace"] == "kept")
    }

    @Test(arguments: SessionTransport.allCases)
    func aSameOriginRedirectKeepsCredentials(on transport: SessionTransport) async throws {
        let request = TestRequest(try redirect(to: server.url("/echo/same")), headers: credentials)
        let echo: Echo = try await makeSession(transport).perform(request)
        #expect(echo.path == "/echo/same")
        #expect(echo.headers["authorization"] == "Bearer secret-token")
        #expect(echo.headers["cookie"] == "session=s3cr3t")
        #expect(echo.headers["x-api-key"] == "k3y-k3y")
    }

    @Test(arguments: SessionTransport.allCases)
    func beyondTheLimitARedirectIsRefusedWithAClearError(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, redirectPolicy: RedirectPolicy(maximumRedirects: 1))
        let twice = try redirect(to: try redirect(to: server.url("/echo/end")))
        await #expect {
            let _: Echo = try await session.perform(TestRequest(twice))
        } throws: { error in
            guard case .redirectRefused(_, _, let reason, _) = error.fetchKind else {
                return false
            }
            return reason == "more than 1 redirects"
                && "\(error)".contains("GET \(twice.absoluteString): refused the redirect from")
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func withRedirectsOffTheCallerGetsThe3xx(on transport: SessionTransport) async throws {
        let policy = RedirectPolicy(maximumRedirects: 0)
        let session =
            transport == .urlSession
            ? Session(
                transport: URLSessionTransport(session: .shared, redirectPolicy: policy),
                callbackQueue: OperationQueue())
            : try makeSession(transport, redirectPolicy: policy)
        let response: Response = try await session.perform(TestRequest(try redirect(to: server.url("/echo/never"))))
        #expect(response.status == 302)
        #expect(response.headers["location"] == server.url("/echo/never").absoluteString)
        #expect(try await server.hits("/echo/never") == 0)
    }
}
