import Foundation

/// The hostile loopback server of `Tests/Server/hostile_server.py`, one per child process of the hostile suite.
///
/// Started the way ``TestServer`` starts `test_server.py`: it prints its port on its first line, and exits when its
/// standard input closes, that is when this process ends, however it ends (a crash included).
final class HostileServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    /// Holds the write end of the server's standard input open for as long as this process lives.
    private let stdinPipe: Pipe
    private let process: Process

    init() throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Hostile
            .deletingLastPathComponent()  // FetchTests
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("Server/hostile_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path]
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        try process.run()
        // The first line, read on this thread: the server prints it at once, and exits (ending the read) if it
        // cannot start.
        var line = Data()
        while let byte = try stdoutPipe.fileHandleForReading.read(upToCount: 1), let first = byte.first,
            first != UInt8(ascii: "\n")
        {
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)),
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            process.terminate()
            throw TestServerError("python3 \(script.path) did not start; its first line was \(text.debugDescription)")
        }
        self.baseURL = baseURL
        self.stdinPipe = stdinPipe
        self.process = process
    }

    /// The path (with its query) of `behaviour` for the run `run`: `/hostile/<name>?run=<run>`.
    func path(of behaviour: HostileBehaviour, run: String) -> String {
        "/hostile/\(behaviour.name)?run=\(run)"
    }

    /// The URL of `path`; with `credentials`, carrying the user `hostile` and the wrong password `wrong`.
    func url(_ path: String, credentials: Bool = false) throws -> URL {
        let userInfo = credentials ? "hostile:wrong@" : ""
        guard let port = baseURL.port, let url = URL(string: "http://\(userInfo)127.0.0.1:\(port)\(path)") else {
            throw TestServerError("cannot make a URL of \(path) on \(baseURL)")
        }
        return url
    }
}
