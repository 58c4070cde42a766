import Foundation

/// `Server/websockets_server.py`: the Python `websockets` package as an independent, strict RFC 6455 peer on
/// loopback, started once for the test process.
///
/// The package is not in Python's standard library: `.ci/run` installs it, and when it is still missing this
/// installs it with pip into `.build/python-websockets` (the test setup the issue asks for), so that `swift test`
/// works on a fresh machine that reaches PyPI; without one it fails with a message saying so.
struct WebSocketsServer: Sendable {
    static let shared = Result { try WebSocketsServer() }

    /// The running server, or the error that kept it from starting.
    static func running() throws -> WebSocketsServer {
        try shared.get()
    }

    private let process: PythonServerProcess

    var port: Int { process.port }

    /// `ws://127.0.0.1:<port><path>`.
    func url(_ path: String, scheme: String = "ws") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    private init() throws {
        process = try PythonServerProcess(script: "websockets_server.py", pythonPath: try Self.packagePath())
    }

    /// The directory to put on `PYTHONPATH` for `websockets`, or `nil` when Python finds it already.
    private static func packagePath() throws -> String? {
        if try python(["-c", "import websockets"]) == 0 {
            return nil
        }
        let target = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent(".build/python-websockets").path
        if try python(["-c", "import sys; sys.path.insert(0, '\(target)'); import websockets"]) == 0 {
            return target
        }
        guard try python(["-m", "pip", "install", "--quiet", "--target", target, "websockets"]) == 0 else {
            throw TestServerError(
                "the WebSocket tests need the Python package websockets, and `python3 -m pip install --target"
                    + " \(target) websockets` failed: install it with `python3 -m pip install websockets`")
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
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
