#if os(Linux)
    import CFetchCurl
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Sends HTTP requests with libcurl's multi interface: on Linux, several times the throughput of
    /// swift-corelibs-foundation's `URLSession`, which is itself built on libcurl.
    ///
    /// libcurl is loaded at run time (`libcurl.so.4`, which every Linux machine that runs Foundation has); creating a
    /// transport throws ``CurlTransportError`` when it cannot be loaded or is older than 7.68.0.
    ///
    /// One thread per transport runs libcurl's event loop. Requests and cancellations reach it through
    /// `curl_multi_wakeup`, connections are kept alive and reused (up to ``Options/maximumConnectionsPerHost`` per
    /// host), and HTTP/2 is used over TLS when the server offers it, with concurrent requests multiplexed on one
    /// connection. TLS always verifies the peer's certificate and host name.
    ///
    /// Response heads are read strictly, with bounds: an invalid status or field line, a head past 256 KiB or 1,000
    /// fields, or a header line past libcurl's 100 KB fails the request with ``FetchError/transport(_:request:)`` and
    /// `URLError.badServerResponse`, whose message quotes the line.
    ///
    /// A transport does not follow redirects: a 3xx response is delivered as it is, so that the caller applies its
    /// own ``RedirectPolicy`` hop by hop (``send(_:timeout:redirectPolicy:completion:)`` does that).
    ///
    /// Releasing the transport cancels the requests still in flight and stops its thread.
    public final class CurlTransport: Sendable {
        /// The settings the transport was created with.
        public let options: Options

        let loop: CurlEventLoop

        /// Creates a transport, with its own connections and event-loop thread.
        ///
        /// - Parameter options: Connection limits, HTTP version and TLS settings.
        /// - Throws: ``CurlTransportError`` when libcurl cannot be loaded, is too old, or an option is invalid.
        public convenience init(options: Options = Options()) throws {
            try self.init(options: options, libraryName: CurlLibrary.defaultName)
        }

        /// Creates a transport on the library `libraryName`: tests pass a name that does not exist.
        package init(options: Options, libraryName: String) throws {
            try options.validate()
            let library = try CurlLibrary.load(libraryName)
            self.options = options
            self.loop = try CurlEventLoop(options: options, library: library)
        }

        deinit {
            loop.shutDown()
        }

        /// Sends `request` once, without following redirects, and calls `completion` once with the response and its
        /// body, or with the error that ended the call.
        ///
        /// `completion` runs on the transport's thread: keep it short, or hop to a queue of your own. The errors are
        /// ``FetchError/timedOut(request:seconds:)`` when no complete answer came within `timeout`, ``FetchError/cancelled(request:)`` after
        /// `cancel()`, and ``FetchError/transport(_:request:)`` with the nearest `URLError` code (and `failingURL`) for every
        /// network failure.
        ///
        /// - Parameters:
        ///   - request: The request. A body is sent from `httpBody` or streamed from `httpBodyStream`, never read
        ///     whole into memory. An `Accept-Encoding` header naming only encodings libcurl can decode has the
        ///     response decoded.
        ///   - timeout: The longest the whole exchange may take, in seconds, with millisecond precision.
        ///   - completion: Called once with the outcome.
        /// - Returns: The call, to cancel it. Cancelling before the transport starts it sends nothing.
        @discardableResult
        public func send(
            _ request: URLRequest,
            timeout: TimeInterval,
            completion: @escaping @Sendable (Result<(HTTPURLResponse, Data), any Error>) -> Void
        ) -> any Cancellable {
            let call = CurlCall(loop: loop)
            loop.start(call, CurlJob(request: request, timeout: timeout, delivery: .whole(completion)))
            return call
        }

        /// Sends `request` once as ``send(_:timeout:completion:)`` does, and answers with the head as libcurl collected
        /// it, without making an `HTTPURLResponse`.
        func sendForHead(
            _ request: URLRequest,
            timeout: TimeInterval,
            maximumBodyBytes: Int = .max,
            completion: @escaping @Sendable (Result<(CurlHead, Data), any Error>) -> Void
        ) -> any Cancellable {
            let call = CurlCall(loop: loop)
            var job = CurlJob(request: request, timeout: timeout, delivery: .head(completion))
            job.maximumBodyBytes = maximumBodyBytes
            loop.start(call, job)
            return call
        }
    }
#endif
