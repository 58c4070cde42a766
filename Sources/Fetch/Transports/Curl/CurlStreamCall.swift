#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One streamed request of a ``CurlTransport`` and its redirects: it follows each redirect head as the
    /// policy decides, then hands back the first other head with its body in a ``ChunkBuffer``.
    ///
    /// The request's timeout is how long the server may stay silent, as for a `URLSession` stream (libcurl's low-speed
    /// limit, in whole seconds): an endless stream is not cut off. Back-pressure spills to disk
    /// (``ChunkBuffer/Backpressure/spillToDisk``): the transfer is never paused, so a slow reader never holds up the
    /// transport's other requests.
    final class CurlStreamCall: CancellableCall {
        private enum Phase {
            case waitingForHead
            case streaming(ChunkBuffer)
            case ended
        }

        private struct State {
            var phase = Phase.waitingForHead
            var tracker: RedirectTracker
            /// The number of the current hop: events of an earlier hop, abandoned for a redirect, are ignored.
            var hops = 0
            var hop: (any CancellableCall)?
            var isCancelled = false
            /// The redirects followed so far, and when the first hop started.
            var followed = FollowedRedirects()
        }

        private let curl: CurlTransport
        private let policy: RedirectPolicy
        private let request: any Request
        private let maximumBufferSize: Int
        private let completion: @Sendable (Result<ResponseStream, any Error>) -> Void
        private let state: Locked<State>

        init(
            curl: CurlTransport,
            policy: RedirectPolicy,
            request: any Request,
            originalURL: URL,
            maximumBufferSize: Int,
            completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
        ) {
            self.curl = curl
            self.policy = policy
            self.request = request
            self.maximumBufferSize = maximumBufferSize
            self.completion = completion
            self.state = Locked(State(tracker: RedirectTracker(originalURL: originalURL)))
        }

        func cancel() {
            let hop = state.withLock { state -> (any CancellableCall)? in
                state.isCancelled = true
                return state.hop
            }
            hop?.cancel()
        }

        /// Sends one hop.
        func send(_ urlRequest: URLRequest) {
            let number = state.withLock { state in
                state.hops += 1
                return state.hops
            }
            let idleTimeout = urlRequest.timeoutInterval
            let hop = curl.stream(urlRequest, declaring: request.headers, timeout: 0, idleTimeout: idleTimeout) {
                [self] event in
                receive(event, hop: number, sent: urlRequest)
            }
            let isCancelled = state.withLock { state in
                if state.hops == number {
                    state.hop = hop
                }
                return state.isCancelled
            }
            if isCancelled {
                hop.cancel()
            }
        }

        /// What to do with an event, decided under the lock.
        private enum Step {
            case ignore
            case follow(URLRequest, abandoning: (any CancellableCall)?)
            case fail(any Error, cancelling: (any CancellableCall)?)
            case open(ResponseStream)
            case receive(Data, ChunkBuffer)
            case finish(ChunkBuffer, (any Error)?, AttemptMetrics?)
        }

        /// Handles an event of hop `number`, on the transport's thread.
        private func receive(_ event: CurlTransport.StreamEvent, hop number: Int, sent urlRequest: URLRequest) {
            let step = state.withLock { state -> Step in
                guard state.hops == number else {
                    return .ignore
                }
                switch (event, state.phase) {
                case (.response(let head), .waitingForHead):
                    return opening(head, sent: urlRequest, state: &state)
                case (.data(let data), .streaming(let buffer)):
                    return .receive(data, buffer)
                case (.finished(let metrics), .streaming(let buffer)):
                    state.phase = .ended
                    return .finish(buffer, nil, state.followed.measure(metrics))
                case (.failed(let error), .streaming(let buffer)):
                    state.phase = .ended
                    return .finish(
                        buffer, CurlTransport.naming(error, request, timeout: idleTimeout(of: urlRequest)), nil)
                case (.failed(let error), .waitingForHead):
                    state.phase = .ended
                    let named = CurlTransport.naming(error, request, timeout: idleTimeout(of: urlRequest))
                    return .fail(named, cancelling: nil)
                case (.finished, .waitingForHead):
                    state.phase = .ended
                    return .fail(FetchError.notHTTPResponse(request: request), cancelling: nil)
                default:
                    return .ignore
                }
            }
            switch step {
            case .ignore:
                break
            case .follow(let next, let abandoned):
                abandoned?.cancel()
                send(next)
            case .fail(let error, let cancelling):
                cancelling?.cancel()
                completion(.failure(error))
            case .open(let stream):
                completion(.success(stream))
            case .receive(let data, let buffer):
                buffer.receive(data)
            case .finish(let buffer, let error, let metrics):
                buffer.finish(throwing: error, metrics: metrics)
            }
        }

        private func idleTimeout(of urlRequest: URLRequest) -> TimeInterval {
            urlRequest.timeoutInterval
        }

        /// The step for a head: follow it when it is a redirect the policy follows, refuse it, or open the stream.
        private func opening(_ head: CurlHead, sent urlRequest: URLRequest, state: inout State) -> Step {
            if let redirect = CurlRedirectingCall.redirect(
                of: urlRequest, status: head.statusCode, location: head.headers["Location"], url: head.url),
                let redirecting = head.httpResponse
            {
                if let followed = state.tracker.next(after: redirecting, redirect: redirect, policy: policy) {
                    if let target = followed.url {
                        state.followed.note(head, to: target)
                    }
                    return .follow(followed, abandoning: state.hop)
                }
                if let refusal = state.tracker.refusal {
                    state.phase = .ended
                    return .fail(refusal, cancelling: state.hop)
                }
            }
            let control = ChunkBuffer.Control(pause: {}, resume: {}, cancel: { [weak self] in self?.cancel() })
            let buffer = ChunkBuffer(limit: maximumBufferSize, backpressure: .spillToDisk, control: control)
            state.phase = .streaming(buffer)
            // Built from the head itself, not an `HTTPURLResponse`, whose dictionary would join repeated fields.
            var response = Response(
                status: head.statusCode, headers: head.headers, data: nil, originalRequest: request, url: head.url)
            response.metrics = state.followed.measure(head).metrics
            return .open(ResponseStream(response: response, buffer: buffer))
        }
    }
#endif
