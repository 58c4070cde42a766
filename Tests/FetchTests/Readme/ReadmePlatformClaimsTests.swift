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

    /// "a `TransferSession`'s downloads and uploads follow the same policy": an upload redirected to another origin
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
        let transfers = TransferSession(configuration: .ephemeral, callbackQueue: OperationQueue())
        let echo: Echo = try await transfers.upload(request, fromFile: file).value
        #expect(echo.path == "/echo/upload")
        #expect(echo.headers["authorization"] == (crossOrigin ? nil : "Bearer upload-token"))
        #expect(echo.headers["cookie"] == (crossOrigin ? nil : "session=upload"))
    }

    /// "On Linux a download cancelled midway leaves swift-corelibs-foundation's partial `<UUID>.tmp` file in the
    /// temporary directory": when corelibs starts deleting it, this test fails and the sentence can go.
    @Test(.enabled(if: Self.isLinux, "the documented behaviour is swift-corelibs-foundation's"))
    func onLinuxADownloadCancelledMidwayLeavesATemporaryFile() async throws {
        let temporary = FileManager.default.temporaryDirectory
        func partialFiles() throws -> Set<String> {
            // corelibs names them `<UUID>.tmp`; other tests' temporary files (`.name.<UUID>.tmp`) are not counted.
            Set(
                try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter {
                    $0.hasSuffix(".tmp") && UUID(uuidString: String($0.dropLast(4))) != nil
                })
        }
        let before = try partialFiles()
        let directory = temporary.appending(path: "readme-cancel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let transfers = TransferSession(configuration: .ephemeral, callbackQueue: OperationQueue())
        let progress = Captured<TransferProgress>()
        let result = Captured<Result<Response, any Error>>()
        let call = transfers.download(
            TestRequest(server.url("/large/\(64 << 20)/\(UUID().uuidString)?rate=1")),
            to: directory.appending(path: "video.mp4"), progress: progress.capture, completion: result.capture)
        _ = try await progress.first()
        call.cancel()
        guard case .failure(let error) = try await result.first(), case FetchError.cancelled = error else {
            Issue.record("expected FetchError.cancelled, got \(result.values)")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "video.mp4").path))
        let left = try partialFiles().subtracting(before)
        #expect(!left.isEmpty, "no new .tmp file in \(temporary.path)")
        // Not removed: in a parallel run a new `<UUID>.tmp` may be another test's download still in flight.
    }

    static var isLinux: Bool {
        #if os(Linux)
            true
        #else
            false
        #endif
    }
}
