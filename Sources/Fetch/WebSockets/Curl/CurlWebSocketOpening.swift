#if os(Linux)
    import CFetchCurl
    import Foundation
    import Glibc

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Opens a WebSocket over libcurl: connects (TCP and TLS, libcurl's, with `CURLOPT_CONNECT_ONLY`) on a thread of
    /// its own, so that no shared thread waits for a slow server; writes the opening handshake and reads the answer
    /// there; then hands the connection to ``CurlWebSocketLoop``. One opening at a time goes to a host and port
    /// (``CurlWebSocketOpeningQueue``): the others wait for their turn with no thread and no descriptor.
    ///
    /// `Sendable`: its state is behind `state`'s lock.
    final class CurlWebSocketOpening: CancellableCall, Sendable {
        /// The opening's mutable state, behind `state`'s lock.
        private struct State {
            var completion: (@Sendable (Result<Response, any Error>) -> Void)?
            var isCancelled = false
            /// Wakes the opening thread's poll(2) when cancelled; nil before the thread starts, once closed, or if
            /// it could not be opened.
            var wakeup: WakeupPipe?
        }

        /// What the opening thread needs, fixed when the opening is asked for.
        private struct Work {
            let urlRequest: URLRequest
            let options: CurlTransport.Options
            let maximumMessageSize: Int
            /// Whether the handshake offers permessage-deflate: asked for, and zlib is loaded.
            let offersCompression: Bool
            let loop: CurlWebSocketLoop
            /// When the opening times out, counted from when it was asked for (its wait for its turn included).
            let deadline: ContinuousClock.Instant
        }

        /// Why the opening thread stopped early.
        private enum Stop: Error {
            /// ``cancel()`` was called (and completed the opening).
            case cancelled
            /// The request's timeout passed.
            case timedOut
            /// The error to complete with.
            case failed(any Error)
        }

        /// The handshake request, which every error names.
        private let request: any Request
        /// The completion, the cancellation and the wakeup pipe.
        private let state: Locked<State>
        private let work: Work
        /// The host and port whose turn the opening takes (``CurlWebSocketOpeningQueue``).
        private let key: String
        private let queue: CurlWebSocketOpeningQueue

        private init(
            request: any Request, work: Work, queue: CurlWebSocketOpeningQueue,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            self.request = request
            self.work = work
            self.key = CurlWebSocketOpeningQueue.key(for: work.urlRequest.url)
            self.queue = queue
            state = Locked(State(completion: completion))
        }

        /// Opens a WebSocket with the handshake `request`, connecting as `options` say.
        ///
        /// - Parameters:
        ///   - request: The handshake request, with a `ws`, `wss`, `http` or `https` URL.
        ///   - options: The TLS settings (CA file, pins) of the transport; verification is always on.
        ///   - defaultTimeout: How long connecting and the handshake may take when the request sets no timeout.
        ///   - maximumMessageSize: The largest message the channel accepts.
        ///   - compression: Whether to offer permessage-deflate; it is offered only where zlib can be loaded, and
        ///     only when the request has no `Sec-WebSocket-Extensions` field of its own.
        ///   - completion: Called once, as
        ///     ``WebSocketTransport/openWebSocket(_:maximumMessageSize:compression:completion:)`` says.
        /// - Returns: A handle that cancels the opening.
        static func open(
            _ request: any Request,
            options: CurlTransport.Options,
            defaultTimeout: TimeInterval,
            maximumMessageSize: Int,
            compression: WebSocket.Compression,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> any CancellableCall {
            let urlRequest: URLRequest
            switch Exchange.makeURLRequest(for: request, defaultTimeout: defaultTimeout) {
            case .success(let built):
                urlRequest = built
            case .failure(let error):
                completion(.failure(error))
                return CompletedCall()
            }
            let loop: CurlWebSocketLoop
            do {
                loop = try CurlWebSocketLoop.shared.get()
            } catch {
                completion(.failure(Self.transportError(.cannotConnectToHost, "\(error)", request: request)))
                return CompletedCall()
            }
            let milliseconds = CurlTransfer.milliseconds(urlRequest.timeoutInterval)
            let work = Work(
                urlRequest: urlRequest, options: options, maximumMessageSize: maximumMessageSize,
                offersCompression: compression.offersDeflate && Zlib.isAvailable
                    && urlRequest.value(forHTTPHeaderField: "Sec-WebSocket-Extensions") == nil,
                loop: loop,
                // 0: no timeout, which libcurl reads as none too.
                deadline: ContinuousClock.now
                    + (milliseconds > 0 ? .milliseconds(milliseconds) : .seconds(86_400 * 365)))
            let queue = CurlWebSocketOpeningQueue.shared
            let opening = CurlWebSocketOpening(request: request, work: work, queue: queue, completion: completion)
            if milliseconds > 0 {
                // An opening still waiting for its turn when its timeout passes ends there.
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                    if queue.remove(opening, key: opening.key) {
                        opening.complete(
                            .failure(FetchError.timedOut(request: request, seconds: urlRequest.timeoutInterval)))
                    }
                }
            }
            queue.enqueue(opening, key: opening.key)
            return opening
        }

        /// Takes the opening's turn: starts its thread, or, when it was cancelled while it waited, hands the turn on.
        func start() {
            let wakeup = state.withLock { state -> WakeupPipe?? in
                guard !state.isCancelled else {
                    return .none
                }
                // Without a pipe (no descriptors left), waits poll in short steps and look at the cancellation.
                state.wakeup = try? WakeupPipe()  // nil: the waits fall back to steps of 100 ms
                return .some(state.wakeup)
            }
            guard wakeup != nil else {
                queue.finished(key: key)
                return
            }
            let thread = Thread { [self] in
                run(
                    work.urlRequest, options: work.options, maximumMessageSize: work.maximumMessageSize, loop: work.loop
                )
            }
            thread.name = "Fetch WebSocket handshake"
            thread.start()
        }

        /// Ends the opening at once with ``FetchError/cancelled(request:)``; the thread stops at its next step.
        func cancel() {
            let completion = state.withLock { state in
                defer { state.completion = nil }
                state.isCancelled = true
                state.wakeup?.signal()
                return state.completion
            }
            queue.remove(self, key: key)  // false: on its way, or done
            completion?(.failure(FetchError.cancelled(request: request)))
        }

        /// Whether ``cancel()`` was called.
        private var isCancelled: Bool {
            state.withLock { $0.isCancelled }
        }

        /// Calls the completion unless the opening was cancelled; returns whether it did.
        @discardableResult
        private func complete(_ result: Result<Response, any Error>) -> Bool {
            let completion = state.withLock { state in
                defer { state.completion = nil }
                return state.completion
            }
            completion?(result)
            return completion != nil
        }

        // MARK: - The opening thread

        /// The opening thread's body: connect, handshake, and hand over or answer.
        private func run(
            _ urlRequest: URLRequest, options: CurlTransport.Options, maximumMessageSize: Int, loop: CurlWebSocketLoop
        ) {
            defer {
                state.withLock { state in
                    state.wakeup?.close()
                    state.wakeup = nil
                }
                queue.finished(key: key)
            }
            let timeout = urlRequest.timeoutInterval
            let deadline = work.deadline
            guard let easy = CurlEasy() else {
                complete(.failure(Self.transportError(.unknown, "curl_easy_init failed", request: request)))
                return
            }
            do throws(Stop) {
                // The time left of the timeout, after the opening's wait for its turn.
                let left = ContinuousClock.now.duration(to: deadline)
                guard timeout <= 0 || left > .zero else {
                    throw Stop.timedOut
                }
                let connectTimeout =
                    timeout > 0 ? Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18 : 0
                let started = (date: Date(), instant: ContinuousClock.now)
                let socket = try connect(easy, urlRequest, options: options, timeout: connectTimeout)
                let key = WebSocketHandshake.makeKey()
                let head: Data
                do {
                    head = try WebSocketHandshake.requestHead(
                        for: urlRequest, declaring: request.headers, key: key,
                        extensions: work.offersCompression ? PerMessageDeflate.offer : nil)
                } catch let error as FetchError {
                    throw Stop.failed(error.naming(request))
                } catch {
                    throw Stop.failed(error)
                }
                try sendAll(head, easy: easy, socket: socket, deadline: deadline)
                var reply = try readHead(easy: easy, socket: socket, deadline: deadline)
                guard let status = reply.status else {
                    throw Stop.failed(Self.transportError(.badServerResponse, "no response head", request: request))
                }
                var metrics = Self.metrics(of: easy, started: started, requestHeaderBytes: head.count)
                let url = urlRequest.url ?? request.url
                guard status == 101 else {
                    readBody(&reply, easy: easy, socket: socket, deadline: deadline)
                    var refusal = Response(
                        status: status, headers: reply.headers, data: reply.body, originalRequest: request, url: url)
                    metrics.duration = AttemptMetrics.seconds(from: started.instant, to: .now)
                    metrics.responseBodyBytes = reply.body.count
                    metrics.responseBodyDecodedBytes = reply.body.count
                    refusal.metrics = metrics
                    complete(.success(refusal))
                    return
                }
                let negotiation = PerMessageDeflate.negotiate(
                    answer: reply.headers["Sec-WebSocket-Extensions"], offered: work.offersCompression)
                var compression: PerMessageDeflate?
                var problem = WebSocketHandshake.problem(
                    withUpgrade: reply.headers, key: key,
                    offeredProtocols: urlRequest.value(forHTTPHeaderField: "Sec-WebSocket-Protocol"),
                    checksExtensions: false)
                switch negotiation {
                case .none:
                    break
                case .agreed(let agreement):
                    compression = agreement
                case .failed(let reason):
                    problem = problem ?? reason
                }
                if let problem {
                    let response = Response(
                        status: status, headers: reply.headers, data: Data(), originalRequest: request, url: url)
                    complete(.failure(FetchError.webSocketHandshakeFailed(reason: problem, response)))
                    return
                }
                guard !isCancelled else {
                    return
                }
                let handover = CurlWebSocketHandover(
                    request: request, easy: easy, socket: socket, maximumMessageSize: maximumMessageSize,
                    compression: compression, bytesAfterHead: reply.bytesAfterHead)
                let channel = CurlWebSocketChannel(handover, loop: loop)
                var response = Response(
                    status: status, headers: reply.headers, originalRequest: request, url: url,
                    webSocketChannel: channel)
                response.metrics = metrics
                if !complete(.success(response)) {
                    channel.cancel()  // cancelled in the meantime: nobody will use it
                }
            } catch {
                switch error {
                case .cancelled:
                    return  // cancel() has completed
                case .timedOut:
                    complete(.failure(FetchError.timedOut(request: request, seconds: timeout)))
                case .failed(let error):
                    complete(.failure(error))
                }
            }
        }

        /// The metrics of a handshake that started at `started` and whose response head has just arrived: the
        /// connection's phases as libcurl measured them, the time to the head as Fetch did (it is the whole answer
        /// of a `101`), and the opening request's `requestHeaderBytes`.
        private static func metrics(
            of easy: CurlEasy, started: (date: Date, instant: ContinuousClock.Instant), requestHeaderBytes: Int
        ) -> AttemptMetrics {
            let elapsed = AttemptMetrics.seconds(from: started.instant, to: .now)
            var metrics = CurlMetrics.read(easy, start: started.date, elapsed: elapsed ?? 0, bodyBytes: nil)
            metrics.timeToFirstByte = elapsed
            metrics.duration = elapsed
            // Fetch wrote the request and read the answer itself: libcurl counted neither.
            metrics.httpVersion = "HTTP/1.1"
            metrics.requestHeaderBytes = requestHeaderBytes
            metrics.requestBodyBytes = 0
            metrics.responseHeaderBytes = nil
            return metrics
        }

        /// Connects with libcurl (TCP, TLS, a proxy's tunnel) and returns the socket.
        private func connect(
            _ easy: CurlEasy, _ urlRequest: URLRequest, options: CurlTransport.Options, timeout: TimeInterval
        ) throws(Stop) -> Int32 {
            guard let url = urlRequest.url, let curlURL = Self.curlURL(for: url) else {
                let target = urlRequest.url?.absoluteString ?? request.url.absoluteString
                throw .failed(
                    FetchError.invalidRequest(
                        "GET \(target): a WebSocket URL must be absolute, with the scheme ws, wss, http or https"))
            }
            var failed: (option: String, code: Int32)?
            func set(_ name: String, _ code: Int32) {
                if code != CFCURLE_OK, failed == nil {
                    failed = (name, code)
                }
            }
            set("CURLOPT_URL", easy.set(Int(CFCURLOPT_URL), curlURL.absoluteString))
            set("CURLOPT_CONNECT_ONLY", easy.set(Int(CFCURLOPT_CONNECT_ONLY), 1))
            if let refused = easy.setConnectionDefaults(options) {
                set(refused.option, refused.code)
            }
            // HTTP/1.1 only, so that ALPN cannot pick HTTP/2, which has no Upgrade; a proxy is tunnelled through.
            set("CURLOPT_HTTP_VERSION", easy.set(Int(CFCURLOPT_HTTP_VERSION), Int(CFCURL_HTTP_VERSION_1_1)))
            _ = easy.set(Int(CFCURLOPT_HTTPPROXYTUNNEL), 1)
            let milliseconds = CurlTransfer.milliseconds(timeout)
            _ = easy.set(Int(CFCURLOPT_CONNECTTIMEOUT_MS), milliseconds)
            _ = easy.set(Int(CFCURLOPT_TIMEOUT_MS), milliseconds)
            // The progress callback runs while libcurl connects: cancelling aborts it there.
            _ = easy.set(Int(CFCURLOPT_NOPROGRESS), 0)
            _ = easy.set(
                Int(CFCURLOPT_XFERINFODATA), pointer: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()))
            _ = cfcurl_easy_setopt_progress_callback(easy.handle, Int32(CFCURLOPT_XFERINFOFUNCTION)) {
                context, _, _, _, _ in
                guard let context else {
                    return 1
                }
                return Unmanaged<CurlWebSocketOpening>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
            }
            if let failed {
                let reason = String(cString: cfcurl_easy_strerror(failed.code))
                throw .failed(
                    Self.transportError(
                        .unsupportedURL, "libcurl refused \(failed.option) (\(reason))", request: request))
            }
            let code = cfcurl_easy_perform(easy.handle)
            guard !isCancelled else {
                throw .cancelled
            }
            guard code == CFCURLE_OK else {
                let error = CurlFailure.error(for: code, detail: easy.errorMessage, url: url)
                throw .failed(CurlTransport.naming(error, request, timeout: timeout))
            }
            var socket: Int32 = -1
            guard cfcurl_easy_active_socket(easy.handle, &socket) == CFCURLE_OK, socket >= 0 else {
                throw .failed(
                    Self.transportError(
                        .cannotConnectToHost, "libcurl connected but reported no socket (CURLINFO_ACTIVESOCKET)",
                        request: request))
            }
            return socket
        }

        /// Writes all of `data`, waiting for the socket when libcurl can take no more.
        private func sendAll(_ data: Data, easy: CurlEasy, socket: Int32, deadline: ContinuousClock.Instant)
            throws(Stop)
        {
            var offset = 0
            while offset < data.count {
                var sent = 0
                let code = data.withUnsafeBytes { bytes in
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                    return cfcurl_easy_send(easy.handle, rest.baseAddress, rest.count, &sent)
                }
                if Int(code) == CFCURLE_AGAIN || (code == CFCURLE_OK && sent == 0) {
                    try wait(for: Int16(POLLOUT), socket: socket, deadline: deadline)
                    continue
                }
                guard code == CFCURLE_OK else {
                    throw .failed(failure(code, easy, doing: "sending the opening handshake"))
                }
                offset += sent
            }
        }

        /// Reads some bytes (nil at the end of the connection), waiting for them until `deadline`.
        private func receive(easy: CurlEasy, socket: Int32, deadline: ContinuousClock.Instant) throws(Stop) -> Data? {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                var received = 0
                let code = buffer.withUnsafeMutableBytes { bytes in
                    cfcurl_easy_recv(easy.handle, bytes.baseAddress, bytes.count, &received)
                }
                if Int(code) == CFCURLE_AGAIN {
                    try wait(for: Int16(POLLIN), socket: socket, deadline: deadline)
                    continue
                }
                guard code == CFCURLE_OK else {
                    throw .failed(failure(code, easy, doing: "reading the handshake's response"))
                }
                return received == 0 ? nil : Data(buffer[0..<min(received, buffer.count)])
            }
        }

        /// Reads until the response head is complete (at most 64 KiB).
        private func readHead(easy: CurlEasy, socket: Int32, deadline: ContinuousClock.Instant) throws(Stop)
            -> WebSocketHandshakeReply
        {
            var reply = WebSocketHandshakeReply()
            var count = 0
            while !reply.hasHead {
                guard let bytes = try receive(easy: easy, socket: socket, deadline: deadline) else {
                    throw .failed(
                        Self.transportError(
                            .badServerResponse,
                            "the server closed the connection after \(count) bytes of the handshake's response head",
                            request: request))
                }
                count += bytes.count
                do {
                    try reply.append(bytes)
                } catch {
                    throw .failed(
                        Self.transportError(
                            .badServerResponse, "the handshake's response head is invalid: \(error)", request: request))
                }
            }
            reply.takeBodyFromPending()
            return reply
        }

        /// Reads the body of a refusal, as much as arrives within the time left; a failure ends it where it is.
        private func readBody(
            _ reply: inout WebSocketHandshakeReply, easy: CurlEasy, socket: Int32, deadline: ContinuousClock.Instant
        ) {
            while !reply.isBodyComplete {
                do {
                    guard let bytes = try receive(easy: easy, socket: socket, deadline: deadline) else {
                        reply.connectionClosed()
                        return
                    }
                    try reply.append(bytes)  // the head is complete: the body takes the bytes, and never throws
                } catch {
                    // Timed out, cancelled or cut: the refusal is reported with the body so far, which is what the
                    // error parser reads; a cancellation has completed already.
                    reply.connectionClosed()
                    return
                }
            }
        }

        /// Waits until `socket` is ready for `events`, the opening is cancelled, or `deadline` passes.
        private func wait(for events: Int16, socket: Int32, deadline: ContinuousClock.Instant) throws(Stop) {
            let wakeup = state.withLock { $0.wakeup?.readEnd } ?? -1
            while true {
                guard !isCancelled else {
                    throw .cancelled
                }
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else {
                    throw .timedOut
                }
                let (seconds, attoseconds) = left.components
                let milliseconds = Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000))
                var descriptors = [
                    pollfd(fd: socket, events: events, revents: 0),
                    pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&descriptors, nfds_t(wakeup >= 0 ? 2 : 1), wakeup >= 0 ? milliseconds : 100)
                if ready > 0, descriptors[0].revents != 0 {
                    return
                }
            }
        }

        /// The error for libcurl's `code` while doing `action`, naming the request.
        private func failure(_ code: Int32, _ easy: CurlEasy, doing action: String) -> any Error {
            let detail = "\(action): \(easy.errorMessage ?? "no detail from libcurl")"
            return CurlTransport.naming(
                CurlFailure.error(for: code, detail: detail, url: request.url), request, timeout: 0)
        }

        /// `url` with `ws` as `http` and `wss` as `https`, which libcurl connects to; nil for another scheme.
        static func curlURL(for url: URL) -> URL? {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                let scheme = components.scheme?.lowercased(), components.host?.isEmpty == false
            else {
                return nil
            }
            switch scheme {
            case "ws", "http":
                components.scheme = "http"
            case "wss", "https":
                components.scheme = "https"
            default:
                return nil
            }
            return components.url
        }

        /// ``FetchError/transport(_:request:)`` with `code` and a message naming the request.
        static func transportError(_ code: URLError.Code, _ message: String, request: any Request) -> any Error {
            let text = "WebSocket handshake with GET \(request.url.absoluteString): \(message)"
            return FetchError.transport(
                URLError(code, userInfo: [NSLocalizedDescriptionKey: text, NSURLErrorFailingURLErrorKey: request.url]),
                request: request)
        }
    }
#endif
