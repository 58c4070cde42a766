import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One streamed request of a ``StreamingEngine``, from sending it to the end of its body.
///
/// Until the response head arrives, the caller of ``StreamingEngine/stream(_:for:errorParser:bufferLimit:)`` waits
/// on ``open(_:)``'s continuation; a 2xx head resumes it with a ``ResponseStream`` over a ``ChunkBuffer`` that the
/// body's chunks then fill; any other status reads up to ``StreamingEngine/errorBodyLimit`` bytes of the body and
/// resumes it with the error. Every transition happens under `phase`'s lock, so the continuation resumes once.
final class StreamCall: Sendable {
    private enum Phase {
        case created
        case opening(CheckedContinuation<ResponseStream, any Error>)
        case readingErrorBody(HTTPURLResponse, Data, CheckedContinuation<ResponseStream, any Error>)
        case streaming(ChunkBuffer)
        case cancelledEarly
        case ended
    }

    private struct State {
        var phase = Phase.created
        var redirects: RedirectTracker
    }

    private let task: URLSessionTask
    private let request: any Request
    private let errorParser: (any ErrorParsing)?
    private let bufferLimit: Int
    private let state: Locked<State>

    init(
        task: URLSessionTask,
        request: any Request,
        originalURL: URL,
        errorParser: (any ErrorParsing)?,
        bufferLimit: Int
    ) {
        self.task = task
        self.request = request
        self.errorParser = errorParser
        self.bufferLimit = bufferLimit
        self.state = Locked(State(redirects: RedirectTracker(originalURL: originalURL)))
    }

    /// Waits for the response head with `continuation`; returns `false` (having thrown ``FetchError/cancelled(request:)``
    /// into it) when the call was cancelled before it started, in which case the task must not be resumed.
    func open(_ continuation: CheckedContinuation<ResponseStream, any Error>) -> Bool {
        let started = state.withLock { state -> Bool in
            guard case .created = state.phase else {
                return false
            }
            state.phase = .opening(continuation)
            return true
        }
        if !started {
            continuation.resume(throwing: FetchError.cancelled())
        }
        return started
    }

    /// The awaiting task was cancelled before the head arrived: the call ends with ``FetchError/cancelled(request:)``.
    func cancelOpening() {
        let waiting = state.withLock { state -> CheckedContinuation<ResponseStream, any Error>? in
            switch state.phase {
            case .created:
                state.phase = .cancelledEarly
                return nil
            case .opening(let continuation), .readingErrorBody(_, _, let continuation):
                state.phase = .ended
                return continuation
            case .streaming, .cancelledEarly, .ended:
                return nil
            }
        }
        guard let waiting else {
            return
        }
        cancelTask()
        waiting.resume(throwing: FetchError.cancelled())
    }

    /// Cancels the call, whether it is still opening or its body is being read.
    func cancel() {
        let buffer = state.withLock { state -> ChunkBuffer? in
            guard case .streaming(let buffer) = state.phase else {
                return nil
            }
            return buffer
        }
        guard let buffer else {
            cancelOpening()
            return
        }
        buffer.cancel()
    }

    /// The response head arrived; returns whether to read its body.
    func receive(_ urlResponse: URLResponse) -> Bool {
        enum Outcome {
            case ignore
            case open(CheckedContinuation<ResponseStream, any Error>, ResponseStream)
            case fail(CheckedContinuation<ResponseStream, any Error>, any Error)
            case readErrorBody
        }
        let outcome = state.withLock { state -> Outcome in
            guard case .opening(let continuation) = state.phase else {
                return .ignore
            }
            if let refusal = state.redirects.refusal {
                state.phase = .ended
                return .fail(continuation, refusal)
            }
            guard let httpResponse = urlResponse as? HTTPURLResponse else {
                state.phase = .ended
                return .fail(continuation, FetchError.notHTTPResponse())
            }
            guard (200..<300).contains(httpResponse.statusCode) else {
                state.phase = .readingErrorBody(httpResponse, Data(), continuation)
                return .readErrorBody
            }
            let buffer = ChunkBuffer(limit: bufferLimit, control: control())
            state.phase = .streaming(buffer)
            let response = Response(httpResponse: httpResponse, data: nil, originalRequest: request)
            return .open(continuation, ResponseStream(response: response, buffer: buffer))
        }
        switch outcome {
        case .ignore:
            return false
        case .open(let continuation, let stream):
            continuation.resume(returning: stream)
            return true
        case .fail(let continuation, let error):
            continuation.resume(throwing: error)
            return false
        case .readErrorBody:
            return true
        }
    }

    /// A chunk of the body arrived.
    func receive(_ data: Data) {
        enum Outcome {
            case none
            case chunk(ChunkBuffer)
            case errorBodyComplete(HTTPURLResponse, Data, CheckedContinuation<ResponseStream, any Error>)
        }
        let outcome = state.withLock { state -> Outcome in
            switch state.phase {
            case .streaming(let buffer):
                return .chunk(buffer)
            case .readingErrorBody(let httpResponse, var body, let continuation):
                body.append(data.prefix(StreamingEngine.errorBodyLimit - body.count))
                guard body.count >= StreamingEngine.errorBodyLimit else {
                    state.phase = .readingErrorBody(httpResponse, body, continuation)
                    return .none
                }
                state.phase = .ended
                return .errorBodyComplete(httpResponse, body, continuation)
            case .created, .opening, .cancelledEarly, .ended:
                return .none
            }
        }
        switch outcome {
        case .none:
            break
        case .chunk(let buffer):
            buffer.receive(data)
        case .errorBodyComplete(let httpResponse, let body, let continuation):
            // The rest of the body is not wanted.
            cancelTask()
            continuation.resume(throwing: statusError(httpResponse, body: body))
        }
    }

    /// The task completed, with `error` or at the end of the body.
    func complete(error: (any Error)?) {
        enum Outcome {
            case none
            case fail(CheckedContinuation<ResponseStream, any Error>, any Error)
            case finish(ChunkBuffer)
        }
        let outcome = state.withLock { state -> Outcome in
            let phase = state.phase
            state.phase = .ended
            switch phase {
            case .opening(let continuation):
                let failure =
                    state.redirects.refusal ?? error.map { Exchange.transportError($0, for: request) }
                    ?? FetchError.notHTTPResponse()
                return .fail(continuation, failure)
            case .readingErrorBody(let httpResponse, let body, let continuation):
                return .fail(continuation, statusError(httpResponse, body: body))
            case .streaming(let buffer):
                return .finish(buffer)
            case .created, .cancelledEarly, .ended:
                return .none
            }
        }
        switch outcome {
        case .none:
            break
        case .fail(let continuation, let failure):
            continuation.resume(throwing: failure)
        case .finish(let buffer):
            buffer.finish(throwing: error.map { Exchange.transportError($0, for: request) })
        }
    }

    /// The request to follow a redirect with under `policy`, or `nil` to stop there.
    func redirect(after response: HTTPURLResponse, to request: URLRequest, policy: RedirectPolicy) -> URLRequest? {
        state.withLock { $0.redirects.next(after: response, redirect: request, policy: policy) }
    }

    private func statusError(_ httpResponse: HTTPURLResponse, body: Data) -> any Error {
        let response = Response(httpResponse: httpResponse, data: body, originalRequest: request)
        switch Parsing.requireSuccess(response, errorParser: errorParser) {
        case .failure(let error):
            return error
        case .success:
            return FetchError.unacceptableStatus(response)
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
