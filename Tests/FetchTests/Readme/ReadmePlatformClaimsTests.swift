import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The documentation's claims about the platform and the test set-up that need the loopback server: they would fail
/// if the platform changed under them (and the documentation's sentence with it).
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
    @Test(.enabled(if: Self.isLinux, "the documented behaviour is swift-corelibs-foundation's"))
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

    /// "Fractional timeouts are exact on Linux too, where swift-corelibs-foundation would otherwise truncate them to
    /// whole seconds (0.5 s timing out at once)": with 0.9 s, a plain `URLSession` gives up on an answer 100 ms
    /// away. (No wall-clock bound: a loaded run of the whole suite delays everything by seconds.)
    @Test(.enabled(if: Self.isLinux, "the documented behaviour is swift-corelibs-foundation's"))
    func onLinuxAPlainURLSessionTimesOutAtOnceWithAFractionalTimeout() async throws {
        var request = URLRequest(url: server.url("/delay/100"))
        request.timeoutInterval = 0.9
        let urlSession = URLSession(configuration: .ephemeral)
        defer { urlSession.finishTasksAndInvalidate() }
        let answer = Captured<Result<Data, any Error>>()
        urlSession.dataTask(with: request) { data, _, error in
            answer.capture(error.map { .failure($0) } ?? .success(data ?? Data()))
        }.resume()
        guard case .failure(let error) = try await answer.first(), (error as? URLError)?.code == .timedOut else {
            Issue.record("expected URLError.timedOut, got \(answer.values)")
            return
        }
    }

    /// "a `Session`'s downloads and uploads follow the same policy": an upload redirected to another origin
    /// arrives there without its credentials (and keeps them within its origin, so that the test can fail).
    @Test(arguments: [false, true])
    func anUploadRedirectedToAnotherOriginCarriesNoCredentials(crossOrigin: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "readme-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let file = directory.appending(path: "photo.jpg")
        try Data(repeating: 0xFF, count: 4096).write(to: file)
        let target = crossOrigin ? server.otherOriginURL("/echo/upload") : server.url("/echo/upload")
        var components = try #require(URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        let request = TestRequest(
            try #require(components.url), method: .post,
            headers: ["Authorization": "Bearer upload-token", "Cookie": "session=upload", "Content-Type": "image/jpeg"])
        let echo = try await transferPerformer(.urlSession).upload(request, fromFile: file, as: Echo.self).value
        #expect(echo.path == "/echo/upload")
        #expect(echo.headers["authorization"] == (crossOrigin ? nil : "Bearer upload-token"))
        #expect(echo.headers["cookie"] == (crossOrigin ? nil : "session=upload"))
    }

    /// "A download cancelled midway leaves no file behind": neither at the destination nor beside it (the body is
    /// written by Fetch itself, not by swift-corelibs-foundation's download tasks, which left `<UUID>.tmp` files).
    @Test(arguments: SessionTransport.allCases)
    func aDownloadCancelledMidwayLeavesNoFile(transport: SessionTransport) async throws {
        let directory = try TemporaryDirectory("readme-cancel")
        let download = try transferPerformer(transport).download(
            TestRequest(server.url("/large/\(64 << 20)/\(UUID().uuidString)?rate=1")),
            to: directory.url.appending(path: "video.mp4"))
        var progress = download.progress.makeAsyncIterator()
        _ = await progress.next()
        download.cancel()

        let error = try await #require(throws: FetchError.self) { try await download.value }
        guard case .cancelled = error.fetchKind else {
            Issue.record("expected FetchError.cancelled, got \(error)")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    static var isLinux: Bool {
        #if os(Linux)
            true
        #else
            false
        #endif
    }
}
