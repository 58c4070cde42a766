#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension CurlTransport {
        /// How a ``CurlTransport`` connects: connection limits, HTTP version and TLS settings.
        ///
        /// TLS always verifies the server's certificate chain and host name; these settings can only add trust (a CA
        /// file) or narrow it (pins), never turn verification off.
        public struct Options: Sendable, Equatable {
            /// Which HTTP version the transport asks for.
            public enum HTTPVersion: Sendable, Equatable {
                /// HTTP/1.1 only.
                case http1
                /// HTTP/2 over TLS when the server offers it (ALPN), with concurrent requests multiplexed on one
                /// connection; HTTP/1.1 otherwise and over plain `http`.
                case http2OverTLS
            }

            /// The most connections open at once to one host (scheme, host and port). Requests beyond it wait for
            /// a connection, or share one over HTTP/2. The default is 6, as `URLSession`'s.
            package var maximumConnectionsPerHost: Int

            /// The HTTP version asked for. The default is ``HTTPVersion/http2OverTLS``.
            package var httpVersion: HTTPVersion

            /// A PEM file of certificate authorities trusted instead of the system's, for example the CA of a
            /// self-signed test server. `nil` (the default) trusts the system's certificate authorities.
            package var certificateAuthorityFile: URL?

            /// Public keys the server's certificate must have one of, as `sha256//<base64 of the SHA-256 of the
            /// DER-encoded SubjectPublicKeyInfo>` (libcurl's `CURLOPT_PINNEDPUBLICKEY`). A server whose key matches
            /// none fails with `URLError.serverCertificateUntrusted`. Empty (the default) pins nothing.
            package var pinnedPublicKeys: [String]

            /// Whether requests without an `Accept-Encoding` header ask for every encoding libcurl can decode
            /// (`gzip`, `deflate`, `br`, `zstd` as built in) and get the body decoded. The default is `false`: only
            /// a request that sets `Accept-Encoding` itself gets compressed responses, decoded when libcurl knows
            /// every encoding it names.
            package var requestsCompression: Bool

            /// Where the transport keeps cookies: each request gets the store's cookies for its URL, and each
            /// response's `Set-Cookie` fields go into it, as with a `URLSessionConfiguration`'s
            /// `httpCookieStorage`. `nil` (the default) sends and keeps none.
            package var cookieStorage: HTTPCookieStorage?

            /// Creates options.
            ///
            /// - Parameters:
            ///   - maximumConnectionsPerHost: The most connections open at once to one host (scheme, host and port).
            ///     Requests beyond it wait for a connection, or share one over HTTP/2. The default is 6, as
            ///     `URLSession`'s.
            ///   - httpVersion: The HTTP version asked for. The default is ``HTTPVersion/http2OverTLS``.
            ///   - certificateAuthorityFile: A PEM file of certificate authorities trusted instead of the system's, for
            ///     example the CA of a self-signed test server. `nil` (the default) trusts the system's.
            ///   - pinnedPublicKeys: Public keys the server's certificate must have one of, as `sha256//<base64 of the
            ///     SHA-256 of the DER-encoded SubjectPublicKeyInfo>` (libcurl's `CURLOPT_PINNEDPUBLICKEY`). A server
            ///     whose key matches none fails with `URLError.serverCertificateUntrusted`. Empty (the default) pins
            ///     nothing.
            ///   - requestsCompression: Whether requests without an `Accept-Encoding` header ask for every encoding
            ///     libcurl can decode (`gzip`, `deflate`, `br`, `zstd` as built in) and get the body decoded. The
            ///     default is `false`: only a request that sets `Accept-Encoding` itself gets compressed responses,
            ///     decoded when libcurl knows every encoding it names.
            ///   - cookieStorage: Where the transport keeps cookies, for example an `HTTPCookieStorage` that outlives
            ///     the process. `nil` (the default) sends and keeps none, as ``URLSessionTransport`` over
            ///     `URLSession.shared`. A request with a `Cookie` header of its own keeps the store out.
            public init(
                maximumConnectionsPerHost: Int = 6,
                httpVersion: HTTPVersion = .http2OverTLS,
                certificateAuthorityFile: URL? = nil,
                pinnedPublicKeys: [String] = [],
                requestsCompression: Bool = false,
                cookieStorage: HTTPCookieStorage? = nil
            ) {
                self.maximumConnectionsPerHost = maximumConnectionsPerHost
                self.httpVersion = httpVersion
                self.certificateAuthorityFile = certificateAuthorityFile
                self.pinnedPublicKeys = pinnedPublicKeys
                self.requestsCompression = requestsCompression
                self.cookieStorage = cookieStorage
            }

            /// Throws when a setting cannot work, so that the mistake shows when the transport is made.
            func validate() throws {
                guard maximumConnectionsPerHost > 0 else {
                    throw CurlTransportError(
                        "maximumConnectionsPerHost must be at least 1, not \(maximumConnectionsPerHost)")
                }
                for pin in pinnedPublicKeys where !pin.hasPrefix("sha256//") || pin.count <= 8 || pin.contains(";") {
                    throw CurlTransportError(
                        "the public-key pin \(pin.debugDescription) is not of the form sha256//<base64 digest>")
                }
                if let file = certificateAuthorityFile {
                    guard file.isFileURL, FileManager.default.isReadableFile(atPath: file.path) else {
                        throw CurlTransportError(
                            "the certificate authority file \(file.absoluteString) is not a readable local file")
                    }
                }
            }

            /// The value of `CURLOPT_PINNEDPUBLICKEY`, or `nil` when nothing is pinned.
            var pinnedPublicKeyOption: String? {
                pinnedPublicKeys.isEmpty ? nil : pinnedPublicKeys.joined(separator: ";")
            }
        }
    }
#endif
