#if os(Linux)
    import Foundation

    /// The loopback HTTPS server of `Tests/FetchTests/Support/Server/tls_server.py`, serving ``TestCertificate``, started once for the
    /// whole test process; it exits when this process ends.
    final class TLSTestServer: Sendable {
        static let shared = Result { try TLSTestServer() }
        /// One that waits ``handshakeDelay`` after accepting a connection before it reads the TLS handshake.
        static let slowHandshake = Result { try TLSTestServer(handshakeDelay: handshakeDelay) }
        /// The wait of ``slowHandshake``, in seconds.
        static let handshakeDelay: TimeInterval = 0.3

        /// `https://127.0.0.1:<port>`.
        let baseURL: URL
        let port: Int
        /// The running script, which lives as long as this server.
        private let server: PythonServerProcess

        static func running() throws -> TLSTestServer {
            try shared.get()
        }

        private init(handshakeDelay: TimeInterval? = nil) throws {
            let certificate = try TestCertificate.shared.get()
            let delay = handshakeDelay.map { [String(Int(($0 * 1000).rounded()))] } ?? []
            server = try PythonServerProcess(
                script: "tls_server.py", arguments: [certificate.certificate.path, certificate.key.path] + delay)
            guard let baseURL = URL(string: "https://127.0.0.1:\(server.port)") else {
                throw TestServerError("no URL for the TLS server's port \(server.port)")
            }
            self.port = server.port
            self.baseURL = baseURL
        }
    }
#endif
