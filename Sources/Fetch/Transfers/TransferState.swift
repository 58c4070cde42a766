import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the ``TransferSession``'s delegate tells a transfer in flight.
protocol TransferTracking: AnyObject, Sendable {
    /// Bytes were received (a download) or sent (an upload); `expected` is negative when unknown.
    func didTransfer(_ completed: Int64, of expected: Int64)
    /// A download's body is complete in the temporary file at `location`, which is deleted when this returns.
    func didFinishDownloading(_ task: URLSessionTask, to location: URL)
    /// The response to a data task arrived: whether to receive its body.
    func didReceive(_ response: URLResponse, for task: URLSessionTask) -> URLSession.ResponseDisposition
    /// Part of a data task's body arrived (an upload's response, a resumable download's body).
    func didReceive(_ data: Data)
    /// The task ended, with `error` when it failed.
    func didComplete(_ task: URLSessionTask, error: (any Error)?)
    /// The server redirected the task: the request to follow it with, or `nil` not to follow it.
    func willRedirect(after response: HTTPURLResponse, to request: URLRequest) -> URLRequest?
    /// The request body again, from its start, as a stream that has not been read: for a task whose streamed body
    /// must be sent again (a 307 or 308 redirect, an authentication challenge). `nil` when there is none.
    func newBodyStream() -> InputStream?
}

extension TransferTracking {
    func didReceive(_ response: URLResponse, for task: URLSessionTask) -> URLSession.ResponseDisposition {
        .allow
    }
}

/// One download or upload: its task, its progress so far, and whether it has finished.
///
/// Whoever ends the transfer first under `state`'s lock (the task completing, a cancellation, a request that
/// could not be built) reports it, so the completion runs exactly once. Progress values are handed to the callback
/// one at a time, only when larger than the last one handed over, and none after the completion, so they stay
/// monotonic even on a concurrent callback queue.
final class TransferState<Value: Sendable>: TransferTracking, Cancellable {
    private enum Phase {
        case created
        case running(URLSessionTask)
        case finished
    }

    private struct State {
        var phase = Phase.created
        var body = Data()
        var fileOutcome: Result<Void, any Error>?
        var redirects: RedirectTracker
        /// The timer that ends the transfer at its request's timeout, while it runs.
        var deadline: (any DispatchSourceTimer)?
        /// That timeout, to name in the error when `URLSession`'s own timer (set to the same) fires first.
        var timeout: TimeInterval?
    }

    /// The most bytes of an error body that a download keeps for the error.
    static var errorBodyLimit: Int { 1 << 20 }

    let request: any Request
    private let redirectPolicy: RedirectPolicy
    private let destination: URL?
    private let queue: OperationQueue?
    private let progress: @Sendable (TransferProgress) -> Void
    private let parse: @Sendable (Response) -> Result<Value, any Error>
    private let completion: @Sendable (Result<Value, any Error>) -> Void
    private let state: Locked<State>
    /// The bytes of the last progress value handed to the callback; `.max` once the completion has run. Its lock is
    /// held while the progress callback runs, so that values reach it one at a time and in order.
    private let lastDelivered = Locked(Int64(-1))

    /// - Parameters:
    ///   - request: The request being sent.
    ///   - redirectPolicy: How the transfer follows redirects, as a ``Session`` would.
    ///   - destination: Where a download's body goes; `nil` for an upload.
    ///   - queue: The queue for progress and completion, or `nil` to call them directly.
    ///   - progress: The progress callback.
    ///   - parse: Turns the response into the value to deliver, off the queue.
    ///   - completion: The completion, called exactly once.
    init(
        request: any Request,
        redirectPolicy: RedirectPolicy,
        destination: URL?,
        queue: OperationQueue?,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        parse: @escaping @Sendable (Response) -> Result<Value, any Error>,
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        self.request = request
        self.redirectPolicy = redirectPolicy
        self.state = Locked(State(redirects: RedirectTracker(originalURL: request.url)))
        self.destination = destination
        self.queue = queue
        self.progress = progress
        self.parse = parse
        self.completion = completion
    }

    /// The whole-exchange timeout of `request`, in seconds: its own ``Request/timeout``, when it sets one. A
    /// fractional timeout is given to `URLSession` rounded up to the next second, because swift-corelibs-foundation
    /// truncates it (0.5 s would time out at once); the transfer ends at the exact one itself.
    static func deadline(of request: any Request, adjusting urlRequest: inout URLRequest) -> TimeInterval? {
        guard let timeout = request.timeout, timeout > 0, timeout.isFinite else {
            return nil
        }
        if timeout.rounded(.up) != timeout {
            urlRequest.timeoutInterval = timeout.rounded(.up)
        }
        return timeout
    }

    /// A timer, not resumed yet, that calls `expire` after `seconds` on a global queue.
    static func timer(after seconds: TimeInterval, _ expire: @escaping @Sendable () -> Void) -> any DispatchSourceTimer
    {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + seconds)
        source.setEventHandler(handler: expire)
        return source
    }

    /// Resumes `task`, unless the transfer was cancelled meanwhile, and ends the transfer with
    /// ``FetchError/timedOut(request:seconds:)`` when it is still running `timeout` seconds later: the whole
    /// exchange, not only a silence, however steadily the body keeps coming.
    func start(_ task: URLSessionTask, timeout: TimeInterval?) {
        let started = state.withLock { state in
            guard case .created = state.phase else {
                return false
            }
            state.phase = .running(task)
            state.timeout = timeout
            if let timeout {
                // The handler keeps the transfer alive until the timer fires or is cancelled, which ending does.
                let timer = Self.timer(after: timeout) { [self] in
                    fail(FetchError.timedOut(request: request, seconds: timeout))
                }
                state.deadline = timer
                timer.resume()
            }
            return true
        }
        if started {
            task.resume()
        } else {
            task.cancel()
        }
    }

    /// Ends the transfer with `error` unless it has ended.
    func fail(_ error: any Error) {
        if let task = end() {
            task?.cancel()
            deliver(.failure(error), finalProgress: nil)
        }
    }

    func cancel() {
        fail(FetchError.cancelled())
    }

    // MARK: - TransferTracking

    func didTransfer(_ completed: Int64, of expected: Int64) {
        let value = TransferProgress(completedBytes: completed, expectedBytes: expected >= 0 ? expected : nil)
        perform { self.deliverProgress(value) }
    }

    func didFinishDownloading(_ task: URLSessionTask, to location: URL) {
        let isFinished = state.withLock { state in
            if case .finished = state.phase {
                return true
            }
            return false
        }
        guard !isFinished else {
            // Cancelled, but swift-corelibs-foundation sometimes finishes the task anyway: keep nothing. A failure
            // only means the file is gone already.
            try? FileManager.default.removeItem(at: location)
            return
        }
        let outcome = Result<Void, any Error> {
            let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
            if let destination, (200..<300).contains(status) {
                try Self.move(location, to: destination)
            } else {
                let handle = try FileHandle(forReadingFrom: location)
                defer {
                    try? handle.close()  // read-only: nothing to flush, nothing lost
                    // swift-corelibs-foundation leaves the temporary file behind; Apple's URLSession deletes it
                    // itself, so a failure here only means it is gone already.
                    try? FileManager.default.removeItem(at: location)
                }
                let errorBody = try handle.read(upToCount: Self.errorBodyLimit) ?? Data()
                state.withLock { $0.body = errorBody }
            }
        }
        state.withLock { $0.fileOutcome = outcome }
    }

    func didReceive(_ data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func willRedirect(after response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        state.withLock { $0.redirects.next(after: response, redirect: request, policy: redirectPolicy) }
    }

    func newBodyStream() -> InputStream? {
        Exchange.newBodyStream(for: request)
    }

    func didComplete(_ task: URLSessionTask, error: (any Error)?) {
        guard end() != nil else {
            return
        }
        let (body, fileOutcome, refusal, timeout) = state.withLock {
            ($0.body, $0.fileOutcome, $0.redirects.refusal, $0.timeout)
        }
        let isDownload = destination != nil
        var result =
            refusal.map { .failure($0) }
            ?? Exchange.response(
                for: request, data: body, urlResponse: task.response, error: error, timeout: timeout)
        if isDownload, case .success = result {
            switch fileOutcome {
            case .failure(let error):
                result = .failure(error)
            case .success, nil:
                break
            }
        }
        let completed = isDownload ? task.countOfBytesReceived : task.countOfBytesSent
        let expected = isDownload ? task.countOfBytesExpectedToReceive : task.countOfBytesExpectedToSend
        let final = TransferProgress(completedBytes: completed, expectedBytes: expected > 0 ? expected : completed)
        deliver(result.flatMap(parse), finalProgress: error == nil ? final : nil)
    }

    // MARK: - Delivery

    /// Marks the transfer finished; returns its task (`.some(nil)` when it had none) when this caller ended it.
    private func end() -> URLSessionTask?? {
        state.withLock { state -> URLSessionTask?? in
            state.deadline?.cancel()
            state.deadline = nil
            switch state.phase {
            case .finished:
                return nil
            case .created:
                state.phase = .finished
                return .some(nil)
            case .running(let task):
                state.phase = .finished
                return .some(task)
            }
        }
    }

    private func deliver(_ result: Result<Value, any Error>, finalProgress: TransferProgress?) {
        perform {
            if let finalProgress {
                self.deliverProgress(finalProgress)
            }
            self.lastDelivered.withLock { $0 = .max }
            self.completion(result)
        }
    }

    private func deliverProgress(_ value: TransferProgress) {
        lastDelivered.withLock { last in
            guard value.completedBytes > last else {
                return
            }
            last = value.completedBytes
            progress(value)
        }
    }

    private func perform(_ work: @escaping @Sendable () -> Void) {
        if let queue {
            queue.addOperation(work)
        } else {
            work()
        }
    }

    private static func move(_ location: URL, to destination: URL) throws {
        let files = FileManager.default
        if files.fileExists(atPath: destination.path) {
            try files.removeItem(at: destination)
        }
        try files.moveItem(at: location, to: destination)
    }
}

/// The delegate of a ``TransferSession``'s `URLSession`: passes each task's events to its transfer.
final class TransferDelegate: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate, Sendable {
    private let transfers = Locked([Int: any TransferTracking]())

    func register(_ transfer: any TransferTracking, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    private func transfer(for task: URLSessionTask) -> (any TransferTracking)? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        transfer(for: downloadTask)?.didTransfer(totalBytesWritten, of: totalBytesExpectedToWrite)
    }

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didFinishDownloadingTo location: URL
    ) {
        transfer(for: downloadTask)?.didFinishDownloading(downloadTask, to: location)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        transfer(for: task)?.didTransfer(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(transfer(for: dataTask)?.didReceive(response, for: dataTask) ?? .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.didReceive(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(transfer(for: task)?.willRedirect(after: response, to: request))
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(transfer(for: task)?.newBodyStream())
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.didComplete(task, error: error)
    }
}
