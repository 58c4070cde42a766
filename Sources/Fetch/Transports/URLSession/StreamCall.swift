import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One streamed request of a ``StreamingEngine``, from sending it to the end of its body.
///
/// Until the response head arrives, the call holds the completion that ``open(_:)`` gave it; the head of any
/// status completes it with a ``ResponseStream`` over a ``ChunkBuffer`` that the body's chunks then fill (the
/// pipeline reads an error body itself). Every transition happens under `phase`'s lock, so the completion runs
/// once.
final class StreamCall: CancellableCall, Sendable {
    typealias Completion = @Sendable (Result<ResponseStream, any Error>) -> Void

    private enum Phase {
        case created
        case opening(Completion)
        case streaming(ChunkBuffer)
        case cancelledEarly
        case ended
    }

    private struct State {
        var phase = Phase.created
        var redirects: RedirectTracker
        /// What Fetch measures of the attempt itself, which the head carries.
        var measured = MeasuredAttempt()
        /// What the platform collected of the task (`URLSessionTaskMetrics`, Apple platforms only), which arrives
        /// before it completes: the body's end carries it.
        var collected: AttemptMetrics?
    }

    private let task: URLSessionTask
    private let request: any Request
    private let maximumBufferSize: Int
    private let state: Locked<State>

    init(task: URLSessionTask, request: any Request, originalURL: URL, maximumBufferSize: Int) {
        self.task = task
        self.request = request
        self.maximumBufferSize = maximumBufferSize
        self.state = Locked(State(redirects: RedirectTracker(originalURL: originalURL)))
    }

    /// Waits for the response head with `completion`; returns `false` (having completed it with
    /// ``FetchError/cancelled(request:)``) when the call was cancelled before it started, in which case the task
    /// must not be resumed.
    func open(_ completion: @escaping Completion) -> Bool {
        let started = state.withLock { state -> Bool in
            guard case .created = state.phase else {
                return false
            }
            state.phase = .opening(completion)
            state.measured.begin()
            return true
        }
        if !started {
            completion(.failure(FetchError.cancelled(request: request)))
        }
        return started
    }

    /// Cancels the call: one still opening completes with ``FetchError/cancelled(request:)``; one being read
    /// throws it from its next read.
    func cancel() {
        enum Outcome {
            case none
            case opening(Completion)
            case streaming(ChunkBuffer)
        }
        let outcome = state.withLock { state -> Outcome in
            switch state.phase {
            case .created:
                state.phase = .cancelledEarly
                return .none
            case .opening(let completion):
                state.phase = .ended
                return .opening(completion)
            case .streaming(let buffer):
                return .streaming(buffer)
            case .cancelledEarly, .ended:
                return .none
            }
        }
        switch outcome {
        case .none:
            break
        case .opening(let completion):
            cancelTask()
            completion(.failure(FetchError.cancelled(request: request)))
        case .streaming(let buffer):
            buffer.cancel()
        }
    }

    /// The response head arrived; returns whether to read its body.
    func receive(_ urlResponse: URLResponse) -> Bool {
        enum Outcome {
            case ignore
            case open(Completion, ResponseStream)
            case fail(Completion, any Error)
        }
        let outcome = state.withLock { state -> Outcome in
            guard case .opening(let completion) = state.phase else {
                return .ignore
            }
            if let refusal = state.redirects.refusal {
                state.phase = .ended
                return .fail(completion, refusal)
            }
            guard let httpResponse = urlResponse as? HTTPURLResponse else {
                state.phase = .ended
                return .fail(completion, FetchError.notHTTPResponse(request: request))
            }
            let buffer = ChunkBuffer(limit: maximumBufferSize, control: control())
            state.phase = .streaming(buffer)
            var response = Response(httpResponse: httpResponse, data: nil, originalRequest: request)
            state.measured.noteHead()
            response.metrics = state.measured.metrics(isComplete: false)
            return .open(completion, ResponseStream(response: response, buffer: buffer))
        }
        switch outcome {
        case .ignore:
            return false
        case .open(let completion, let stream):
            completion(.success(stream))
            return true
        case .fail(let completion, let error):
            completion(.failure(error))
            return false
        }
    }

    /// A chunk of the body arrived.
    func receive(_ data: Data) {
        let buffer = state.withLock { state -> ChunkBuffer? in
            guard case .streaming(let buffer) = state.phase else {
                return nil
            }
            return buffer
        }
        buffer?.receive(data)
    }

    /// The task completed, with `error` or at the end of the body.
    func complete(error: (any Error)?) {
        enum Outcome {
            case none
            case fail(Completion, any Error)
            case finish(ChunkBuffer, AttemptMetrics?)
        }
        let outcome = state.withLock { state -> Outcome in
            let phase = state.phase
            state.phase = .ended
            switch phase {
            case .opening(let completion):
                let failure =
                    state.redirects.refusal ?? error.map { Exchange.transportError($0, for: request) }
                    ?? FetchError.notHTTPResponse(request: request)
                return .fail(completion, failure)
            case .streaming(let buffer) where error == nil:
                var metrics: AttemptMetrics
                if let collected = state.collected {
                    metrics = collected
                    metrics.redirects = state.measured.redirects
                } else {
                    metrics = state.measured.metrics(isComplete: true)
                    metrics.responseBodyDecodedBytes = buffer.receivedBytes
                }
                return .finish(buffer, metrics)
            case .streaming(let buffer):
                return .finish(buffer, nil)
            case .created, .cancelledEarly, .ended:
                return .none
            }
        }
        switch outcome {
        case .none:
            break
        case .fail(let completion, let failure):
            completion(.failure(failure))
        case .finish(let buffer, let metrics):
            buffer.finish(throwing: error.map { Exchange.transportError($0, for: request) }, metrics: metrics)
        }
    }

    /// Keeps what the platform collected of the task, for the end of its body.
    func collect(_ metrics: AttemptMetrics) {
        state.withLock { $0.collected = metrics }
    }

    /// The request to follow a redirect with under `policy`, or `nil` to stop there.
    func redirect(after response: HTTPURLResponse, to request: URLRequest, policy: RedirectPolicy) -> URLRequest? {
        state.withLock { state in
            let next = state.redirects.next(after: response, redirect: request, policy: policy)
            if let next {
                state.measured.noteRedirect(response, to: next.url, from: self.request.url)
            }
            return next
        }
    }

    private func control() -> ChunkBuffer.Control {
        let task = task
        return ChunkBuffer.Control(
            pause: { task.suspend() },
            resume: { task.resume() },
            cancel: { [self] in cancelTask() }
        )
    }

    /// Cancels the task from a queue of its own: this may run inside a delegate call, which on
    /// swift-corelibs-foundation runs on the queue that `URLSessionTask.cancel()` synchronises with (see
    /// ``InlineDelegateQueue``).
    private func cancelTask() {
        let task = task
        DispatchQueue.global().async {
            task.cancel()
        }
    }
}
