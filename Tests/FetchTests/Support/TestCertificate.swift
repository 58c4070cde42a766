#if os(Linux)
    import Foundation
    import SpawnSupport

    /// A self-signed certificate for 127.0.0.1 and `localhost`, made with `openssl` for this test run, that serves as
    /// its own certificate authority.
    struct TestCertificate: Sendable {
        /// The one every TLS test shares, made once per test process.
        static let shared = Result { try TestCertificate() }

        let directory: URL
        /// The certificate (PEM), also the CA file that trusts it.
        let certificate: URL
        /// Its private key (PEM).
        let key: URL
        /// `sha256//…` of its public key, for `CURLOPT_PINNEDPUBLICKEY`.
        let pin: String

        private init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            certificate = directory.appendingPathComponent("cert.pem")
            key = directory.appendingPathComponent("key.pem")
            do {
                _ = try Self.shell(
                    """
                    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
                    -subj '/CN=Fetch test server' -addext 'subjectAltName=IP:127.0.0.1' \
                    -keyout '\(key.path)' -out '\(certificate.path)'
                    """)
                let digest = try Self.shell(
                    "openssl pkey -in '\(key.path)' -pubout -outform DER | openssl dgst -sha256 -binary | base64")
                pin = "sha256//" + digest.trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                try? FileManager.default.removeItem(at: directory)  // nil: best-effort clean-up; the error is thrown
                throw error
            }
            // Only `shared` makes one, and it lives as long as the process: its files go when the process exits.
            atexit {
                if case .success(let made) = TestCertificate.shared {
                    try? FileManager.default.removeItem(at: made.directory)  // nil: best-effort clean-up at exit
                }
            }
        }

        /// Runs `command` with `/bin/sh` and returns its standard output; throws with its standard error if it fails.
        static func shell(_ command: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            let (output, errors) = try Spawn.run(process) {
                let pipes = (Pipe(), Pipe())
                process.standardOutput = pipes.0
                process.standardError = pipes.1
                return pipes
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let errorData = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TestServerError(
                    "`\(command)` failed (\(process.terminationStatus)): \(String(decoding: errorData, as: UTF8.self))")
            }
            return String(decoding: data, as: UTF8.self)
        }
    }
#endif
