#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension CurlTransport {
        /// Sends `request` and follows its redirects hop by hop as `redirectPolicy` decides, the way a ``Session``
        /// does: credentials never travel to another origin, `https` → `http` is refused unless allowed, and the
        /// redirect limit applies.
        ///
        /// A 303, and a 301 or 302 answering a `POST`, continue with a `GET` without a body; a 307 or 308 repeats the
        /// method and body, except a streamed body, which cannot be sent twice: its 3xx is delivered as it is.
        ///
        /// - Parameters:
        ///   - request: The first request.
        ///   - timeout: The longest the whole exchange may take, every hop included; `.infinity` for no limit.
        ///   - redirectPolicy: Which redirects to follow.
        ///   - completion: Called once, on the transport's thread, with the last response or the error.
        /// - Returns: The call, to cancel it.
        @discardableResult
        package func send(
            _ request: URLRequest,
            timeout: TimeInterval,
            redirectPolicy: RedirectPolicy,
            completion: @escaping @Sendable (Result<(HTTPURLResponse, Data), any Error>) -> Void
        ) -> any CancellableCall {
            sendForHead(request, timeout: timeout, redirectPolicy: redirectPolicy) { result in
                completion(
                    result.flatMap { head, body in
                        head.httpResponse.map { .success(($0, body)) } ?? .failure(FetchError.notHTTPResponse())
                    })
            }
        }

        /// Sends `request` and follows its redirects as ``send(_:timeout:redirectPolicy:completion:)`` does, and
        /// answers with the last head as libcurl collected it, ending a hop that receives nothing for `idleTimeout`
        /// seconds (`0` for no limit).
        func sendForHead(
            _ request: URLRequest,
            declaring fields: HeaderFields = [:],
            timeout: TimeInterval,
            idleTimeout: TimeInterval = 0,
            redirectPolicy: RedirectPolicy,
            maximumBodyBytes: Int = .max,
            completion: @escaping @Sendable (Result<(CurlHead, Data), any Error>) -> Void
        ) -> any CancellableCall {
            guard let url = request.url else {
                completion(.failure(FetchError.invalidRequest("the URLRequest has no URL")))
                return CompletedCall()
            }
            let call = CurlRedirectingCall(
                transport: self,
                policy: redirectPolicy,
                originalURL: url,
                deadline: timeout.isFinite && timeout > 0 ? Date().addingTimeInterval(timeout) : nil,
                idleTimeout: idleTimeout,
                maximumBodyBytes: maximumBodyBytes,
                declaredFields: fields,
                completion: completion
            )
            call.send(request)
            return call
        }
    }

    /// The redirects an attempt followed, hop by hop, and when its first hop started: what the last head's metrics
    /// carry (see ``AttemptMetrics/following(_:since:)``).
    struct FollowedRedirects {
        private var hops: [AttemptMetrics.Redirect] = []
        private var start: Date?

        /// Whether no redirect has been followed yet.
        var isEmpty: Bool { hops.isEmpty }

        /// Notes that `head`, the answer of a hop, was followed to `target`.
        mutating func note(_ head: CurlHead, to target: URL) {
            if start == nil {
                start = head.metrics?.start
            }
            hops.append(AttemptMetrics.Redirect(url: head.url, status: head.statusCode, location: target))
        }

        /// `head`, the last of the attempt, with metrics that cover every hop.
        func measure(_ head: CurlHead) -> CurlHead {
            var head = head
            head.metrics = measure(head.metrics)
            return head
        }

        /// `metrics`, the last hop's, made to cover every hop.
        func measure(_ metrics: AttemptMetrics?) -> AttemptMetrics? {
            guard let start, let metrics else {
                return metrics
            }
            return metrics.following(hops, since: start)
        }
    }

    /// A request and its redirects, as one cancellable call: it sends each hop through the transport and asks the
    /// policy, through a ``RedirectTracker``, whether to follow the next.
    final class CurlRedirectingCall: CancellableCall {
        private struct State {
            var tracker: RedirectTracker
            /// The redirects followed so far, and when the first hop started.
            var followed = FollowedRedirects()
        }

        private let transport: CurlTransport
        /// What every hop runs under: cancelling it stops the hop in flight, and any hop after it.
        private let call: CurlCall
        private let policy: RedirectPolicy
        /// When the whole exchange must be over; `nil` for no limit.
        private let deadline: Date?
        /// How long each hop may receive nothing, in seconds; `0` for no limit.
        private let idleTimeout: TimeInterval
        private let maximumBodyBytes: Int
        /// The request's declared fields, sent apart on every hop where the hop still holds them (a redirect may
        /// drop a credential).
        private let declaredFields: HeaderFields
        private let completion: @Sendable (Result<(CurlHead, Data), any Error>) -> Void
        private let state: InlineLocked<State>

        init(
            transport: CurlTransport,
            policy: RedirectPolicy,
            originalURL: URL,
            deadline: Date?,
            idleTimeout: TimeInterval,
            maximumBodyBytes: Int,
            declaredFields: HeaderFields,
            completion: @escaping @Sendable (Result<(CurlHead, Data), any Error>) -> Void
        ) {
            self.declaredFields = declaredFields
            self.transport = transport
            self.policy = policy
            self.deadline = deadline
            self.idleTimeout = idleTimeout
            self.maximumBodyBytes = maximumBodyBytes
            self.completion = completion
            self.state = InlineLocked(State(tracker: RedirectTracker(originalURL: originalURL)))
            self.call = CurlCall(loop: transport.loop)
        }

        func cancel() {
            call.cancel()
        }

        /// Sends one hop with what is left of the timeout.
        func send(_ request: URLRequest) {
            let remaining = deadline?.timeIntervalSinceNow ?? .infinity
            guard remaining > 0 else {
                completion(.failure(FetchError.timedOut()))
                return
            }
            transport.start(
                request, on: call, declaring: declaredFields, timeout: remaining, idleTimeout: idleTimeout,
                maximumBodyBytes: maximumBodyBytes
            ) { [self] result in
                arrived(result, for: request)
            }
        }

        private func arrived(_ result: Result<(CurlHead, Data), any Error>, for request: URLRequest) {
            // Most answers are not redirects: their headers are not searched for a Location.
            guard case .success(let (head, body)) = result, Self.isRedirect(head.statusCode),
                let next = Self.redirect(
                    of: request, status: head.statusCode, location: head.headers["Location"], url: head.url),
                let response = head.httpResponse
            else {
                // The usual answer, to a first hop, is handed on as it came: its metrics cover the whole attempt.
                let followed = state.withLock { $0.followed }
                completion(followed.isEmpty ? result : result.map { head, body in (followed.measure(head), body) })
                return
            }
            let decision = state.withLock { state -> (URLRequest?, FetchError?, CurlHead) in
                let followed = state.tracker.next(after: response, redirect: next, policy: policy)
                if let target = followed?.url {
                    state.followed.note(head, to: target)
                }
                return (followed, state.tracker.refusal, state.followed.measure(head))
            }
            switch decision {
            case (let followed?, _, _):
                send(followed)
            case (nil, let refusal?, _):
                completion(.failure(refusal))
            case (nil, nil, let measured):
                completion(.success((measured, body)))
            }
        }

        /// The request a redirect response asks for, or `nil` when `response` is not one that can be followed.
        static func redirect(of request: URLRequest, by response: HTTPURLResponse) -> URLRequest? {
            redirect(
                of: request, status: response.statusCode, location: response.value(forHTTPHeaderField: "Location"),
                url: response.url)
        }

        /// Whether `status` is one of the redirects a call follows: 301, 302, 303, 307 or 308.
        static func isRedirect(_ status: Int) -> Bool {
            (301...303).contains(status) || status == 307 || status == 308
        }

        /// The request a response of `status` with the `Location` header `location`, from `url`, asks for; `nil`
        /// when it is not a redirect that can be followed.
        static func redirect(of request: URLRequest, status: Int, location: String?, url: URL?) -> URLRequest? {
            guard isRedirect(status), let location,
                let target = URL(string: location, relativeTo: url ?? request.url)?.absoluteURL
            else {
                return nil
            }
            var next = request
            next.url = target
            let method = request.httpMethod ?? "GET"
            if status == 303 || (status <= 302 && method == "POST") {
                if method != "HEAD" {
                    next.httpMethod = "GET"
                }
                next.httpBody = nil
                next.httpBodyStream = nil
                next.setValue(nil, forHTTPHeaderField: "Content-Type")
                next.setValue(nil, forHTTPHeaderField: "Content-Length")
            } else if request.httpBodyStream != nil {
                return nil  // a streamed body cannot be sent again
            }
            return next
        }
    }
#endif
