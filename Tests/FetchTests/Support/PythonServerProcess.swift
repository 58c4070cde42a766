import Foundation
import SpawnSupport

/// A loopback server of `Tests/FetchTests/Support/Server/` run as `python3 -u <script> <arguments>`, which prints `PORT <n>` on its
/// first line once it listens and exits when its standard input closes, that is when this process ends, however it
/// ends (a crash included).
struct PythonServerProcess: Sendable {
    let port: Int
    /// Holds the write end of the server's standard input open for as long as this value lives.
    let stdinPipe: Pipe
    let process: Process

    /// Starts `script` (a file name in `Tests/FetchTests/Support/Server/`) and waits for its port, read on this thread: the server
    /// prints it at once, and exits (ending the read) if it cannot start.
    init(script name: String, arguments: [String] = [], pythonPath: String? = nil) throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .appendingPathComponent("Server/\(name)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path] + arguments
        if let pythonPath {
            var environment = ProcessInfo.processInfo.environment
            environment["PYTHONPATH"] = [pythonPath, environment["PYTHONPATH"]].compactMap { $0 }.joined(separator: ":")
            process.environment = environment
        }
        let (stdinPipe, stdoutPipe) = try Spawn.run(process) {
            let pipes = (Pipe(), Pipe())
            process.standardInput = pipes.0
            process.standardOutput = pipes.1
            return pipes
        }
        var line = Data()
        while let byte = try stdoutPipe.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw TestServerError("python3 \(script.path) did not start; its first line was \(text.debugDescription)")
        }
        self.port = port
        self.stdinPipe = stdinPipe
        self.process = process
    }
}
