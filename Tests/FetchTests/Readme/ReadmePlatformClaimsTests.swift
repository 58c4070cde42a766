import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The README's claims about the platform and the test set-up that need the loopback server: they would fail if the
/// platform changed under them (and the README's sentence with it).
@Suite struct ReadmePlatformClaimsTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// "the tests start a small Python server on 127.0.0.1".
    @Test func theTestServerListensOnLoopback() throws {
        #expect(server.baseURL.scheme == "http")
        #expect(server.baseURL.host == "127.0.0.1")
    }

    /// "On Linux, a plain `URLSession` request carrying `Authorization: Bearer …` that is redirected to another host
    /// delivers the token to that host", which is why `Session` has a redirect policy.
    @Test(.enabled(if: Self.isLinux, "the README's sentence is about swift-corelibs-foundation"))
    func onLinuxAPlainURLSessionCarriesTheTokenToAnotherHost() async throws {
        var components = try #require(URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "to", value: server.otherOriginURL("/echo/plain").absoluteString)]
        var request = URLRequest(url: try #require(components.url))
        request.setValue("Bearer plain-token", forHTTPHeaderField: "Authorization")
        let urlSession = URLSession(configuration: .ephemeral)
        defer { urlSession.finishTasksAndInvalidate() }
        let answer = Captured<Result<Data, any Error>>()
        urlSession.dataTask(with: request) { data, _, error in
            answer.capture(error.map { .failure($0) } ?? .success(data ?? Data()))
        }.resume()
        let body = try await answer.first().get()
        let echo = try JSONDecoder().decode(Echo.self, from: body)
        #expect(echo.headers["host"]?.hasPrefix("localhost:") == true)
        #expect(echo.headers["authorization"] == "Bearer plain-token")
    }

    static var isLinux: Bool {
        #if os(Linux)
            true
        #else
            false
        #endif
    }
}
