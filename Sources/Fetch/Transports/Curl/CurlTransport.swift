#if os(Linux)
    import CFetchCurl
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The ``Transport`` that sends requests with libcurl's multi interface, on Linux: several times the throughput of
    /// swift-corelibs-foundation's `URLSession`, which is itself built on libcurl.
    ///
    /// ```swift
    /// let session = try Session(transport: CurlTransport(), callbackQueue: queue)
    /// ```
    ///
    /// A session behaves the same on it as on ``URLSessionTransport``: every middleware, parser, timeout,
    /// cancellation, redirect rule and stream works unchanged. A request's own ``Request/timeout`` bounds the whole
    /// exchange, redirects included; a request without one may take as long as it needs, but fails when the server
    /// sends nothing for 60 seconds, as `URLSession`'s default `timeoutIntervalForRequest` does.
    /// Header fields go out as the request's ``Request/headers`` hold them: in order, spelled as written, a
    /// repeated field apart (the `Cookie` pairs on one line, as RFC 6265 §5.4 asks).
    ///
    /// libcurl is loaded at run time (`libcurl.so.4`, which every Linux machine that runs Foundation has); creating a
    /// transport throws ``CurlTransportError`` when it cannot be loaded or is older than 7.68.0.
    ///
    /// One thread per transport runs libcurl's event loop. Requests and cancellations reach it through
    /// `curl_multi_wakeup`, connections are kept alive and reused (up to the options' `maximumConnectionsPerHost` per
    /// host), and HTTP/2 is used over TLS when the server offers it, with concurrent requests multiplexed on one
    /// connection. TLS always verifies the peer's certificate and host name. Sockets are opened close-on-exec, so a
    /// child process the app starts does not inherit a connection.
    ///
    /// Response heads are read strictly, with bounds: an invalid status or field line, a head past 256 KiB or 1,000
    /// fields, or a header line past libcurl's 100 KB fails the request with ``FetchError/transport(_:request:)`` and
    /// `URLError.badServerResponse`, whose message quotes the line.
    ///
    /// Releasing the transport (once no session, pipeline or call uses it) cancels the requests still in flight and
    /// stops its thread.
    public final class CurlTransport: RestrictedThreadTransport, CancellingTransport, RedirectFollowing {
        /// How long the server may send nothing to a request that sets no ``Request/timeout``, in seconds:
        /// `URLSession`'s default `timeoutIntervalForRequest`, with its meaning (an idle timeout, not a deadline).
        package static let defaultTimeout: TimeInterval = 60

        /// The settings the transport was created with.
        package let options: Options
        /// How redirects are followed, hop by hop.
        package let redirectPolicy: RedirectPolicy
        /// The most bytes of a body read into memory, unless the request sets its own.
        let maximumResponseSize: Int
        /// How long the server may send nothing to a request that sets no ``Request/timeout``, in seconds.
        let idleTimeout: TimeInterval

        let loop: CurlEventLoop

        /// How many easy handles the transport has created: one per call at once, up to its pool's size.
        package var easyHandlesCreated: Int {
            loop.handlesCreated
        }

        /// Answers arrive on libcurl's event-loop thread, which every other request of the transport waits for.
        package var sendsCompleteOnRestrictedThread: Bool { true }

        /// Stream heads arrive there too.
        package var streamsCompleteOnRestrictedThread: Bool { true }

        /// Creates a transport, with its own connections and event-loop thread.
        ///
        /// - Parameters:
        ///   - options: Connection limits, HTTP version and TLS settings.
        ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
        ///     `https` → `http` and follows up to 10 redirects.
        ///   - maximumResponseSize: The most bytes of a response body read into memory, as for
        ///     ``URLSessionTransport``. The default is 100 MiB.
        /// - Throws: ``CurlTransportError`` when libcurl cannot be loaded, is too old, or an option is invalid.
        public convenience init(
            options: Options = Options(),
            redirectPolicy: RedirectPolicy = RedirectPolicy(),
            maximumResponseSize: Int = 100 << 20
        ) throws {
            try self.init(
                options: options, libraryName: CurlLibrary.defaultName, redirectPolicy: redirectPolicy,
                maximumResponseSize: maximumResponseSize)
        }

        /// Creates a transport on the library `libraryName`: tests pass a name that does not exist, or an idle
        /// timeout of a second.
        package init(
            options: Options,
            libraryName: String,
            redirectPolicy: RedirectPolicy = RedirectPolicy(),
            maximumResponseSize: Int = 100 << 20,
            idleTimeout: TimeInterval = CurlTransport.defaultTimeout
        ) throws {
            try options.validate()
            let library = try CurlLibrary.load(libraryName)
            self.options = options
            self.redirectPolicy = redirectPolicy
            self.maximumResponseSize = maximumResponseSize
            self.idleTimeout = idleTimeout
            self.loop = try CurlEventLoop(options: options, library: library)
        }

        deinit {
            loop.shutDown()
        }

        /// Sends `request`, following its redirects as the transport's ``RedirectPolicy`` decides, and answers with
        /// the last response of any status.
        ///
        /// - Parameters:
        ///   - request: The request.
        ///   - completion: Called exactly once, on the transport's thread, with the response or the failure.
        /// - Returns: A handle that cancels the call.
        public func send(
            _ request: any Request,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> any CancellableCall {
            let urlRequest: URLRequest
            switch Exchange.makeURLRequest(for: request, defaultTimeout: idleTimeout) {
            case .success(let built):
                urlRequest = built
            case .failure(let error):
                completion(.failure(error))
                return CompletedCall()
            }
            let timeout = urlRequest.timeoutInterval
            // A request's own timeout is the whole exchange; the default is how long the server may stay silent.
            let isDeadline = request.timeout != nil
            let limit = request.maximumResponseSize ?? maximumResponseSize
            return sendForHead(
                urlRequest, declaring: request.headers, timeout: isDeadline ? timeout : .infinity,
                idleTimeout: isDeadline ? 0 : timeout, redirectPolicy: redirectPolicy, maximumBodyBytes: limit
            ) { result in
                switch result {
                case .success(let (head, data)):
                    var response = Response(
                        status: head.statusCode, headers: head.headers, data: data, originalRequest: request,
                        url: head.url)
                    response.metrics = head.metrics
                    completion(.success(response))
                case .failure(let error):
                    completion(.failure(Self.naming(error, request, timeout: timeout)))
                }
            }
        }

        /// Sends `request`, following its redirects, and hands back the first other response once its head has
        /// arrived, with the body to read as it arrives.
        ///
        /// - Parameters:
        ///   - request: The request. Its timeout is how long the server may stay silent.
        ///   - maximumBufferSize: How many unread bytes may wait in memory; past it they wait in a temporary file.
        ///   - completion: Called exactly once, with the stream or the failure that kept a head from arriving.
        /// - Returns: A handle that cancels the request until the head has arrived; then the stream cancels it.
        public func stream(
            _ request: any Request,
            maximumBufferSize: Int,
            completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
        ) -> any CancellableCall {
            let urlRequest: URLRequest
            switch Exchange.makeURLRequest(for: request, defaultTimeout: idleTimeout) {
            case .success(let built):
                urlRequest = built
            case .failure(let error):
                completion(.failure(error))
                return CompletedCall()
            }
            let call = CurlStreamCall(
                curl: self, policy: redirectPolicy, request: request, originalURL: urlRequest.url ?? request.url,
                maximumBufferSize: maximumBufferSize, completion: completion)
            call.send(urlRequest)
            return call
        }

        /// `error`, naming `request`, and `timeout` when it timed out.
        static func naming(_ error: any Error, _ request: any Request, timeout: TimeInterval) -> any Error {
            switch (error, error.fetchKind) {
            case (_, .timedOut(_, .none)?):
                FetchError.timedOut(request: request, seconds: timeout)
            case (let error as FetchError, _):
                error.naming(request)
            default:
                error
            }
        }

        /// Sends `request` once, without following redirects (a 3xx response is delivered as it is), and calls
        /// `completion` once with the response and its body, or with the error that ended the call.
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
        package func send(
            _ request: URLRequest,
            timeout: TimeInterval,
            completion: @escaping @Sendable (Result<(HTTPURLResponse, Data), any Error>) -> Void
        ) -> any CancellableCall {
            let call = CurlCall(loop: loop)
            loop.start(call, CurlJob(request: request, timeout: timeout, delivery: .whole(completion)))
            return call
        }

        /// Sends `request` once as ``send(_:timeout:completion:)`` does, and answers with the head as libcurl collected
        /// it, without making an `HTTPURLResponse`.
        func sendForHead(
            _ request: URLRequest,
            declaring fields: HeaderFields = [:],
            timeout: TimeInterval,
            idleTimeout: TimeInterval = 0,
            maximumBodyBytes: Int = .max,
            completion: @escaping @Sendable (Result<(CurlHead, Data), any Error>) -> Void
        ) -> any CancellableCall {
            let call = CurlCall(loop: loop)
            start(
                request, on: call, declaring: fields, timeout: timeout, idleTimeout: idleTimeout,
                maximumBodyBytes: maximumBodyBytes, completion: completion)
            return call
        }

        /// Sends `request` once as ``sendForHead(_:declaring:timeout:idleTimeout:maximumBodyBytes:completion:)``
        /// does, under `call`, which may have carried other hops of the same exchange before: cancelling `call`
        /// stops whichever hop it carries, and a hop started after the cancellation ends at once.
        func start(
            _ request: URLRequest,
            on call: CurlCall,
            declaring fields: HeaderFields,
            timeout: TimeInterval,
            idleTimeout: TimeInterval,
            maximumBodyBytes: Int,
            completion: @escaping @Sendable (Result<(CurlHead, Data), any Error>) -> Void
        ) {
            var job: CurlJob
            if let cookies = options.cookieStorage.map(CurlCookies.init(storage:)) {
                let request = cookies.adding(to: request)
                let delivery = CurlJob.Delivery.head { result in
                    if case .success(let (head, _)) = result {
                        cookies.keep(head, of: request)
                    }
                    completion(result)
                }
                job = CurlJob(request: request, timeout: timeout, idleTimeout: idleTimeout, delivery: delivery)
            } else {
                job = CurlJob(request: request, timeout: timeout, idleTimeout: idleTimeout, delivery: .head(completion))
            }
            job.maximumBodyBytes = maximumBodyBytes
            job.declaredFields = fields
            loop.start(call, job)
        }
    }
#endif
