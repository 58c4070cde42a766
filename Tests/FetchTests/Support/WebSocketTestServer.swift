#if os(Linux)
    import Foundation

    /// The loopback WebSocket server of `Tests/FetchTests/Support/Server/websocket_server.py`, one plain and one over
    /// TLS (serving ``TestCertificate``), each started once for the whole test process; they exit when it ends.
    final class WebSocketTestServer: Sendable {
        static let plain = Result { try WebSocketTestServer(tls: false) }
        static let tls = Result { try WebSocketTestServer(tls: true) }

        let port: Int
        /// `ws` or `wss`.
        let scheme: String
        /// The running script, which lives as long as this server.
        private let server: PythonServerProcess

        private init(tls: Bool) throws {
            var arguments: [String] = []
            if tls {
                let certificate = try TestCertificate.shared.get()
                arguments = [certificate.certificate.path, certificate.key.path]
            }
            server = try PythonServerProcess(script: "websocket_server.py", arguments: arguments)
            port = server.port
            scheme = tls ? "wss" : "ws"
        }

        /// `ws://127.0.0.1:<port><path>` (or `wss`, or another `host`).
        func url(_ path: String, host: String = "127.0.0.1") throws -> URL {
            guard let url = URL(string: "\(scheme)://\(host):\(port)\(path)") else {
                throw TestServerError("no URL for \(path.debugDescription) on port \(port)")
            }
            return url
        }
    }
#endif
