import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Session {
    /// What sends a ``Session``'s requests: `URLSession` everywhere, or on Linux libcurl, driven directly.
    ///
    /// ```swift
    /// let session = try Session(transport: .curl, callbackQueue: queue)
    /// ```
    ///
    /// A session behaves the same on either: every middleware, parser, timeout, cancellation, redirect rule and
    /// stream works unchanged. See ``CurlTransport`` for what libcurl adds on Linux.
    public struct Backend: Sendable {
        enum Kind: Sendable {
            case urlSession(URLSessionConfiguration)
            #if os(Linux)
                case curl(CurlTransport.Options)
            #endif
        }

        let kind: Kind

        /// A `URLSession` of the session's own, made from `configuration`: the same as
        /// ``Session/init(configuration:callbackQueue:redirectPolicy:maximumResponseSize:)``.
        ///
        /// - Parameter configuration: The configuration of the new `URLSession`.
        /// - Returns: The backend.
        public static func urlSession(_ configuration: URLSessionConfiguration) -> Backend {
            Backend(kind: .urlSession(configuration))
        }

        #if os(Linux)
            /// libcurl with the default ``CurlTransport/Options``: up to 6 connections per host, HTTP/2 over TLS
            /// when offered, the system's certificate authorities.
            ///
            /// A request without a ``Request/timeout`` may take 60 seconds in all, redirects included.
            public static var curl: Backend {
                curl(CurlTransport.Options())
            }

            /// libcurl with `options`: connection limits, HTTP version, a CA file, public-key pins, compression.
            ///
            /// - Parameter options: How the transport connects.
            /// - Returns: The backend.
            public static func curl(_ options: CurlTransport.Options) -> Backend {
                Backend(kind: .curl(options))
            }
        #endif
    }

    /// Creates a session that sends its requests through `transport`.
    ///
    /// A session on libcurl has its own connections and one event-loop thread, both let go once neither the session
    /// nor any pipeline built on it is left; its ``urlSession`` is `nil`.
    ///
    /// - Parameters:
    ///   - transport: `.curl` (Linux), `.curl(options)` or `.urlSession(configuration)`.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects.
    ///   - maximumResponseSize: The most bytes of a response body; both transports stop reading there. The default
    ///     is 100 MiB.
    /// - Throws: ``CurlTransportError`` when libcurl cannot be loaded, is too old, or an option is invalid.
    public convenience init(
        transport: Backend,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = Session.defaultMaximumResponseSize
    ) throws {
        switch transport.kind {
        case .urlSession(let configuration):
            self.init(
                configuration: configuration, callbackQueue: callbackQueue, redirectPolicy: redirectPolicy,
                maximumResponseSize: maximumResponseSize)
        #if os(Linux)
            case .curl(let options):
                let curl = CurlSessionTransport(
                    curl: try CurlTransport(options: options), redirectPolicy: redirectPolicy,
                    maximumResponseSize: maximumResponseSize)
                self.init(
                    curl, urlSession: nil, callbackQueue: callbackQueue, redirectPolicy: redirectPolicy,
                    maximumResponseSize: maximumResponseSize, cancelInFlight: { curl.cancelAll() })
        #endif
        }
    }
}
