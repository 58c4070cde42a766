#if os(Linux)
    import Fetch
    import Foundation
    import SpawnSupport

    /// Debian's nginx, serving HTTP/2 over TLS with ``TestCertificate`` on a free loopback port, from a directory of
    /// its own; its access log records each request's connection serial number (`$connection`) and protocol.
    final class NginxTestServer: Sendable {
        /// Where nginx may be installed (`.ci/run` installs Debian's package when it is missing).
        static let candidates = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]

        /// The nginx executable, or `nil` when none is installed.
        static var executable: String? {
            candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        let port: Int
        let accessLog: URL
        private let process: Process
        /// Its configuration, logs and temporary files, deleted when it stops.
        private let directory: URL

        /// Starts nginx on `port` (a free port); throws with nginx's own error log when it does not start.
        ///
        /// After `requestsPerConnection` requests nginx ends a connection (an HTTP/2 `GOAWAY`); its default is 1000.
        init(executable: String, port: Int, requestsPerConnection: Int = 1000) throws {
            let certificate = try TestCertificate.shared.get()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-nginx-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            accessLog = directory.appendingPathComponent("access.log")
            let errorLog = directory.appendingPathComponent("error.log")
            let configuration = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(directory.path)/nginx.pid;
                error_log \(errorLog.path) warn;
                events { worker_connections 256; }
                http {
                    log_format fetch '$connection $server_protocol $request_uri';
                    access_log \(accessLog.path) fetch;
                    keepalive_requests \(requestsPerConnection);
                    client_body_temp_path \(directory.path)/client_body;
                    proxy_temp_path \(directory.path)/proxy;
                    fastcgi_temp_path \(directory.path)/fastcgi;
                    uwsgi_temp_path \(directory.path)/uwsgi;
                    scgi_temp_path \(directory.path)/scgi;
                    server {
                        listen 127.0.0.1:\(port) ssl http2;
                        ssl_certificate \(certificate.certificate.path);
                        ssl_certificate_key \(certificate.key.path);
                        location / {
                            default_type application/json;
                            return 200 '{"ok":true}';
                        }
                    }
                }
                """
            let configurationFile = directory.appendingPathComponent("nginx.conf")
            try Data(configuration.utf8).write(to: configurationFile)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-p", directory.path, "-c", configurationFile.path, "-e", errorLog.path]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            self.directory = directory
            do {
                try Spawn.run(process)
            } catch {
                try? FileManager.default.removeItem(at: directory)  // nil: best-effort clean-up; the error is thrown
                throw error
            }
            self.port = port
            self.process = process
        }

        deinit {
            // nginx without a master process keeps the signal mask it was started with, where Foundation's
            // Process blocks SIGTERM: only SIGKILL stops it.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)  // nil: best-effort clean-up of a temp dir
        }

        /// `https://127.0.0.1:<port>`.
        var baseURL: URL {
            URL(string: "https://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
        }

        /// Starts nginx on a free port and waits (at most 10 s) until it answers `transport`.
        static func start(
            answering transport: CurlTransport,
            requestsPerConnection: Int = 1000
        ) async throws -> NginxTestServer {
            guard let executable else {
                throw TestServerError("nginx is not installed (.ci/run installs Debian's package)")
            }
            struct Port: Decodable { let port: Int }
            let (_, data) = try await transport.get(try TestServer.running().url("/free-port")).get()
            let nginx = try NginxTestServer(
                executable: executable, port: try JSONDecoder().decode(Port.self, from: data).port,
                requestsPerConnection: requestsPerConnection)
            let ready = nginx.baseURL.appendingPathComponent("ready")
            // Up to 30 s: nginx's start beside the rest of the suite on two busy cores (it took 10 s and more there).
            try await waitUntil(within: 30) { (try? await transport.get(ready).get()) != nil }
            return nginx
        }

        /// The access log's lines: `<connection> <protocol> <uri>`.
        func loggedRequests() throws -> [[Substring]] {
            let text = try String(contentsOf: accessLog, encoding: .utf8)
            return text.split(separator: "\n").map { $0.split(separator: " ") }
        }
    }
#endif
