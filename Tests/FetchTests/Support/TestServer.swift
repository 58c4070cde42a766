import Fetch
import Foundation
import SpawnSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The loopback HTTP server of `Tests/FetchTests/Support/Server/test_server.py`, started once for the whole test process.
///
/// The server exits when its standard input closes, that is when this process ends, so no test has to stop it and
/// a crashed test run leaves nothing behind.
final class TestServer: Sendable {
    /// The server every test shares. Starting it fails with a clear error when Python cannot run it.
    static let shared = Result { try TestServer() }

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    /// Holds the write end of the server's standard input open for as long as this process lives.
    private let stdinPipe: Pipe
    private let process: Process

    /// The running shared server, or the error that kept it from starting.
    static func running() throws -> TestServer {
        try shared.get()
    }

    /// The URL of `path` (with any query) on the server, for example `url("/users/1")`.
    func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path) ?? baseURL
    }

    /// The URL of `path` at the server's second origin, `http://localhost:<port>`: the same server (which listens on
    /// 127.0.0.1 and ::1), another origin. Not 127.0.0.2, which macOS's loopback interface does not answer.
    func otherOriginURL(_ path: String) -> URL {
        URL(string: "http://localhost:\(baseURL.port ?? 0)" + path) ?? baseURL
    }

    /// How many requests for `path` have reached the server since it started.
    func hits(_ path: String) async throws -> Int {
        struct Hits: Decodable, Parsable {
            let hits: Int
        }
        var components = URLComponents(url: url("/_hits"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "path", value: path)]
        guard let hitsURL = components?.url else {
            throw TestServerError("cannot make the /_hits URL for \(path)")
        }
        let answer: Hits = try await Session().perform(TestRequest(hitsURL))
        return answer.hits
    }

    private init() throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .appendingPathComponent("Server/test_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path]
        let (stdinPipe, stdoutPipe) = try Spawn.run(process) {
            let pipes = (Pipe(), Pipe())
            process.standardInput = pipes.0
            process.standardOutput = pipes.1
            return pipes
        }

        let firstLine = Locked<String?>(nil)
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var line = Data()
            while let byte = try? stdoutPipe.fileHandleForReading.read(upToCount: 1), let first = byte.first,
                first != UInt8(ascii: "\n")
            {
                line.append(first)
            }
            firstLine.withLock { $0 = String(decoding: line, as: UTF8.self) }
            started.signal()
        }
        guard started.wait(timeout: .now() + 20) == .success else {
            process.terminate()
            throw TestServerError("\(script.path) printed no port within 20 s")
        }
        let line = firstLine.withLock { $0 } ?? ""
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)),
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            throw TestServerError("python3 \(script.path) did not start; its first line was \(line.debugDescription)")
        }
        self.baseURL = baseURL
        self.stdinPipe = stdinPipe
        self.process = process
    }
}

struct TestServerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
