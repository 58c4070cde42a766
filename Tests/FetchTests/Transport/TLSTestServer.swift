#if os(Linux)
    import Foundation

    /// The loopback HTTPS server of `Tests/Server/tls_server.py`, serving ``TestCertificate``, started once for the
    /// whole test process; it exits when this process ends.
    final class TLSTestServer: Sendable {
        static let shared = Result { try TLSTestServer() }

        /// `https://127.0.0.1:<port>`.
        let baseURL: URL
        let port: Int
        private let stdinPipe: Pipe
        private let process: Process

        static func running() throws -> TLSTestServer {
            try shared.get()
        }

        private init() throws {
            let certificate = try TestCertificate.shared.get()
            let script = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent()  // Transport
                .deletingLastPathComponent()  // FetchTests
                .deletingLastPathComponent()  // Tests
                .appendingPathComponent("Server/tls_server.py")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-u", script.path, certificate.certificate.path, certificate.key.path]
            let stdinPipe = Pipe()
            let stdoutPipe = Pipe()
            process.standardInput = stdinPipe
            process.standardOutput = stdoutPipe
            try process.run()
            // The first line is "PORT <n>"; reading it blocks until the server listens, or fails when it exits.
            var line = Data()
            while let byte = try stdoutPipe.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
                line.append(byte)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)),
                let baseURL = URL(string: "https://127.0.0.1:\(port)")
            else {
                process.terminate()
                throw TestServerError(
                    "python3 \(script.path) did not start; its first line was \(text.debugDescription)")
            }
            self.port = port
            self.baseURL = baseURL
            self.stdinPipe = stdinPipe
            self.process = process
        }
    }
#endif
