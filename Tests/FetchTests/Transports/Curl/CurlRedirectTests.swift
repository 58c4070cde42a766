#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `CurlTransport.send(_:timeout:redirectPolicy:completion:)`: Fetch's `RedirectPolicy`, hop by hop.
    @Suite struct CurlRedirectTests {
        let server: TestServer
        let transport: CurlTransport

        init() throws {
            server = try TestServer.running()
            transport = try CurlTransport()
        }

        private func redirect(to target: String, status: Int = 302, from base: URL? = nil) throws -> URL {
            var components = try #require(
                URLComponents(url: base ?? server.url("/redirect"), resolvingAgainstBaseURL: false))
            components.queryItems = [
                URLQueryItem(name: "to", value: target), URLQueryItem(name: "status", value: String(status)),
            ]
            return try #require(components.url)
        }

        private func send(_ request: URLRequest, policy: RedirectPolicy = .default) async -> Result<
            (HTTPURLResponse, Data), any Error
        > {
            await withCheckedContinuation { continuation in
                transport.send(request, timeout: 20, redirectPolicy: policy) { continuation.resume(returning: $0) }
            }
        }

        /// One cancel stops the exchange whichever hop it has reached: here the one after the redirect, which the
        /// server holds back for 10 s.
        @Test func cancellingAfterARedirectStopsTheHopInFlight() async throws {
            let request = URLRequest(url: try redirect(to: "/delay/10000"))
            // The redirect is answered at once: half a second on, the second hop is the one in flight.
            let (_, _, elapsed) = try await cancelled(after: 0.5) {
                transport.send(request, timeout: 20, redirectPolicy: .default, completion: $0)
            }
            #expect(elapsed < 9.9)
        }

        @Test func followsARedirectToItsTarget() async throws {
            let (response, data) = try await send(URLRequest(url: try redirect(to: "/echo/curl-followed"))).get()
            #expect(response.statusCode == 200)
            #expect(response.url == server.url("/echo/curl-followed"))
            #expect(try JSONDecoder().decode(Echo.self, from: data).path == "/echo/curl-followed")
        }

        @Test func credentialsStayWithTheirOrigin() async throws {
            let sameOrigin = try redirect(to: "/echo/curl-same-origin")
            let otherOrigin = try redirect(to: server.otherOriginURL("/echo/curl-other-origin").absoluteString)
            for (url, keeps) in [(sameOrigin, true), (otherOrigin, false)] {
                var request = URLRequest(url: url)
                request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
                // Not in the policy's sensitiveHeaders, but in Redaction's list of secrets.
                request.setValue("k3y-k3y", forHTTPHeaderField: "X-API-Key")
                request.setValue("s3ss10n", forHTTPHeaderField: "X-Session-Id")
                let (_, data) = try await send(request).get()
                let echo = try JSONDecoder().decode(Echo.self, from: data)
                #expect(echo.headers["authorization"] == (keeps ? "Bearer secret" : nil), "\(url)")
                #expect(echo.headers["x-api-key"] == (keeps ? "k3y-k3y" : nil), "\(url)")
                #expect(echo.headers["x-session-id"] == (keeps ? "s3ss10n" : nil), "\(url)")
            }
        }

        @Test func aSeeOtherTurnsAPostIntoAGetWithoutBody() async throws {
            var request = URLRequest(url: try redirect(to: "/echo/curl-see-other", status: 303))
            request.httpMethod = "POST"
            request.httpBody = Data("form=1".utf8)
            let (_, data) = try await send(request).get()
            let echo = try JSONDecoder().decode(Echo.self, from: data)
            #expect(echo.method == "GET")
            #expect(echo.body.isEmpty)
        }

        @Test func aTemporaryRedirectRepeatsMethodAndBody() async throws {
            var request = URLRequest(url: try redirect(to: "/echo/curl-temporary", status: 307))
            request.httpMethod = "PUT"
            request.httpBody = Data("again".utf8)
            let (_, data) = try await send(request).get()
            let echo = try JSONDecoder().decode(Echo.self, from: data)
            #expect(echo.method == "PUT")
            #expect(echo.body == "again")
        }

        @Test func theRedirectLimitRefusesTheNextHop() async throws {
            let second = try redirect(to: "/echo/curl-too-far")
            let first = try redirect(to: second.absoluteString)
            let result = await send(URLRequest(url: first), policy: RedirectPolicy(maximumRedirects: 1))
            guard case .redirectRefused(_, let to, let reason, _) = result.failureKind else {
                Issue.record("expected FetchError.redirectRefused, got \(result)")
                return
            }
            #expect(to == server.url("/echo/curl-too-far"))
            #expect(reason.contains("more than 1 redirects"))
            #expect(try await server.hits("/echo/curl-too-far") == 0)
        }

        @Test func aPolicyOfNoRedirectsDeliversThe3xx() async throws {
            let url = try redirect(to: "/echo/curl-not-followed")
            let (response, _) = try await send(URLRequest(url: url), policy: RedirectPolicy(maximumRedirects: 0)).get()
            #expect(response.statusCode == 302)
            #expect(try await server.hits("/echo/curl-not-followed") == 0)
        }
    }
#endif
