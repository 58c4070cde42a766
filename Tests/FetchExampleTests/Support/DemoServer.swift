import Foundation

@testable import FetchExample

/// `Examples/FetchExample/demo_server.py`, started on a free port of 127.0.0.1 for one test and stopped after it.
final class DemoServer: Sendable {
    /// `http://127.0.0.1:<port>/`.
    let baseURL: URL
    private let process: ChildProcess

    private init(baseURL: URL, process: ChildProcess) {
        self.baseURL = baseURL
        self.process = process
    }

    /// Runs `body` with a fresh demo server, which stops when `body` returns or throws.
    static func with<T>(_ body: (DemoServer) async throws -> T) async throws -> T {
        let process = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-u", ExampleFiles.demoServer.path, "--port", "0", "--quiet", "--exit-with-stdin"]
        )
        let line: String
        do {
            line = try await process.firstLine(within: .seconds(20))
        } catch {
            throw ChildProcessError("python3 \(ExampleFiles.demoServer.path) did not start: \(error)")
        }
        // "Serving the demo API on http://127.0.0.1:<port>/ (Ctrl-C to stop)"
        guard let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://127.0.0.1:") }),
            let baseURL = URL(string: String(address))
        else {
            try await process.stopAndWait()
            throw ChildProcessError("the demo server's first line names no address: \(line.debugDescription)")
        }
        let server = DemoServer(baseURL: baseURL, process: process)
        do {
            let result = try await body(server)
            try await process.stopAndWait()
            return result
        } catch {
            try? await process.stopAndWait()  // the body's error is the one to report
            throw error
        }
    }
}
