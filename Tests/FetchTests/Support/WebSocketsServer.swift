import Foundation
import SpawnSupport

/// An independent RFC 6455 implementation in Python serving Fetch's WebSocket tests on loopback, started once per
/// test process: `Server/websockets_server.py` (the `websockets` package, strict) or `Server/autobahn_server.py`
/// (Autobahn|Python on asyncio, whose test suite is the reference for WebSocket conformance).
///
/// Neither package is in Python's standard library: `.ci/run` installs both, and when one is still missing this
/// installs it with pip into `.build/python-<package>` (the test setup), so that `swift test` works on a fresh
/// machine that reaches PyPI; without one it fails with a message saying how to install it.
struct WebSocketsServer: Sendable {
    /// The `websockets` peer, with every scenario of its script.
    static let shared = Result { try WebSocketsServer(script: "websockets_server.py", package: "websockets") }

    /// The Autobahn peer: `/echo`, `/close/<code>` and `/fragments`.
    static let autobahn = Result { try WebSocketsServer(script: "autobahn_server.py", package: "autobahn") }

    /// The running `websockets` peer, or the error that kept it from starting.
    static func running() throws -> WebSocketsServer {
        try shared.get()
    }

    /// A `websockets` peer of the test's own, which it may freeze (``freeze()``) without disturbing other tests.
    static func dedicated() throws -> WebSocketsServer {
        try WebSocketsServer(script: "websockets_server.py", package: "websockets")
    }

    private let process: PythonServerProcess

    /// Stops the server's process (SIGSTOP): the kernel still accepts connections and buffers bytes until they
    /// fill, but nothing answers, as with a server that froze.
    func freeze() {
        kill(process.process.processIdentifier, SIGSTOP)
    }

    /// Lets a frozen server's process go on (SIGCONT).
    func thaw() {
        kill(process.process.processIdentifier, SIGCONT)
    }

    /// Ends the server's process, frozen or not.
    func terminate() {
        kill(process.process.processIdentifier, SIGKILL)
    }

    var port: Int { process.port }

    /// `ws://127.0.0.1:<port><path>`.
    func url(_ path: String, scheme: String = "ws") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    private init(script: String, package: String) throws {
        process = try PythonServerProcess(script: script, pythonPath: try Self.path(installing: package))
    }

    /// The directory to put on `PYTHONPATH` for `package`, or `nil` when Python finds it already.
    private static func path(installing package: String) throws -> String? {
        if try python(["-c", "import \(package)"]) == 0 {
            return nil
        }
        let target = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent(".build/python-\(package)").path
        if try python(["-c", "import sys; sys.path.insert(0, '\(target)'); import \(package)"]) == 0 {
            return target
        }
        guard try python(["-m", "pip", "install", "--quiet", "--target", target, package]) == 0 else {
            throw TestServerError(
                "the WebSocket tests need the Python package \(package), and `python3 -m pip install --target"
                    + " \(target) \(package)` failed: install it with `python3 -m pip install \(package)`")
        }
        return target
    }

    /// Runs `python3` with `arguments`, and returns its exit status.
    private static func python(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try Spawn.run(process)
        process.waitUntilExit()
        return process.terminationStatus
    }
}
