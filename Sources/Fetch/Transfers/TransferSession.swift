import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads response bodies to files and uploads request bodies from files, in constant memory, with progress.
///
/// ```swift
/// let transfers = TransferSession(configuration: .ephemeral)
/// let download = transfers.download(GetFile(name: "video.mp4"), to: destination)
/// for await progress in download.progress {
///     print(progress.fractionCompleted ?? 0)
/// }
/// let response = try await download.value
/// ```
///
/// The body never sits in memory: `URLSession` writes it chunk by chunk to a temporary file, which is moved to the
/// destination as soon as it is complete, inside the delegate call that reports it (on Linux,
/// swift-corelibs-foundation writes it to `NSTemporaryDirectory()/<UUID>.tmp` and, unlike Apple's `URLSession`,
/// never deletes it, so it must not be left there). A response with a status outside 2xx writes no file: its body (up
/// to 1 MiB) goes into the error, as ``Session`` would report it.
///
/// On Linux, a download that is cancelled or fails midway leaves its partial `<UUID>.tmp` file in
/// `NSTemporaryDirectory()`: swift-corelibs-foundation neither deletes it nor says which file it is, and deleting it
/// while its transfer thread may still write would crash the process. A download given a ``DownloadResumption``
/// writes the body itself, to a partial file beside its destination, and resumes from it.
///
/// A request's own ``Request/timeout`` bounds the whole transfer, from the request to the last byte of the response,
/// however steadily the body keeps coming: at the deadline the transfer ends with
/// ``FetchError/timedOut(request:seconds:)`` (each attempt of a resumable download; the retry policy then decides).
/// A fractional timeout is kept exactly, although swift-corelibs-foundation truncates timeouts to whole seconds.
/// Without a timeout of its own, a transfer has no deadline: large bodies take as long as they take, and only the
/// configuration's `URLSession` timeouts apply (`timeoutIntervalForRequest`, how long the server may stay silent;
/// `timeoutIntervalForResource`).
///
/// A `TransferSession` owns a `URLSession` with a delegate of its own, separate from any ``Session``, and
/// invalidates it when released.
public final class TransferSession: Sendable {
    /// The `URLSession` that runs the transfers.
    public let urlSession: URLSession

    /// The queue on which callback-form progress and completions are called. The ``Transfer`` forms do not use it.
    public let callbackQueue: OperationQueue

    /// How redirects are followed: as in a ``Session``, credentials never travel to another origin.
    public let redirectPolicy: RedirectPolicy

    private let delegate: TransferDelegate
    private let delegateDispatchQueue: DispatchQueue
    private let defaultTimeout: TimeInterval

    /// Creates a transfer session that owns a `URLSession` made from `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The configuration of the `URLSession`: timeouts, headers, protocol classes.
    ///   - callbackQueue: The queue on which callback-form progress and completions are called. The default is the
    ///     main queue.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects.
    public init(
        configuration: URLSessionConfiguration = .ephemeral,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default
    ) {
        let delegate = TransferDelegate()
        let delegateQueue = OperationQueue()
        delegateQueue.name = "Fetch.TransferSession.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        // A serial queue of its own gets a thread even when Dispatch's shared pool is busy. That matters: on Linux,
        // swift-corelibs-foundation keeps each received chunk alive until its progress callback has run here, so a
        // starved delegate queue holds the download in memory.
        // `underlyingQueue` does not retain its queue, so this session does.
        let dispatchQueue = DispatchQueue(label: "Fetch.TransferSession.delegate", qos: .userInitiated)
        delegateQueue.underlyingQueue = dispatchQueue
        self.delegateDispatchQueue = dispatchQueue
        self.delegate = delegate
        self.urlSession = URLSession(
            configuration: Session.safeToCancel(configuration), delegate: delegate, delegateQueue: delegateQueue)
        self.callbackQueue = callbackQueue
        self.redirectPolicy = redirectPolicy
        self.defaultTimeout = configuration.timeoutIntervalForRequest
    }

    deinit {
        urlSession.finishTasksAndInvalidate()
    }

    /// Downloads the response body of `request` into the file at `destination`, replacing any file there.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - destination: The file URL to write the body to.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    ///   - progress: Called on ``callbackQueue`` with the bytes received so far, never with a smaller value than
    ///     before, and with the final count before `completion`.
    ///   - completion: Called exactly once on ``callbackQueue`` with the response (its body is in the file, not in
    ///     ``Response/data``), or the error: the error parser's or ``FetchError/unacceptableStatus(_:)`` for a
    ///     status outside 2xx, a ``FetchError`` for a transport failure, ``FetchError/invalidRequest(_:)`` (before
    ///     anything is sent) when `destination`'s directory does not exist, the file system's error when the file
    ///     could not be moved into place, ``FetchError/cancelled(request:)`` when cancelled.
    /// - Returns: A handle that cancels the download.
    @discardableResult
    public func download(
        _ request: any Request,
        to destination: URL,
        errorParser: (any ErrorParsing)? = nil,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any Cancellable {
        download(
            request, to: destination, errorParser: errorParser, queue: callbackQueue, progress: progress,
            completion: completion)
    }

    private func download(
        _ request: any Request,
        to destination: URL,
        errorParser: (any ErrorParsing)?,
        queue: OperationQueue?,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any Cancellable {
        let state = TransferState<Response>(
            request: request,
            redirectPolicy: redirectPolicy,
            destination: destination,
            queue: queue,
            progress: progress,
            parse: { $0.requireSuccess(errorParser: errorParser) },
            completion: completion
        )
        if let problem = DownloadDestination.problem(with: destination, for: request) {
            state.fail(problem)
            return state
        }
        return start(state) { urlSession.downloadTask(with: $0) }
    }

    /// Downloads the response body of `request` into the file at `destination`, resuming from where it stopped when
    /// the connection drops, as `resumption` describes.
    ///
    /// - Parameters:
    ///   - request: The request to send; resumed attempts add `Range` and `If-Range` to it.
    ///   - destination: The file URL to write the body to, replacing any file there once the body is whole and
    ///     checked. The partial file and its record sit beside it meanwhile.
    ///   - resumption: How to resume, retry and check the download.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    ///   - progress: Called on ``callbackQueue`` with the bytes in the partial file so far and what happened to the
    ///     download (``TransferProgress/event``), in order, ending with the total before `completion`.
    ///   - completion: Called exactly once on ``callbackQueue`` with the response of the last request (`206 Partial
    ///     Content` when the download was resumed; its body is in the file), or the error: as for
    ///     ``download(_:to:errorParser:progress:completion:)``, plus ``FetchError/integrityCheckFailed(url:reason:)``
    ///     and ``FetchError/attemptsExhausted(attempts:lastError:request:)``.
    /// - Returns: A handle that cancels the download; the partial file stays, for a later download to resume.
    @discardableResult
    public func download(
        _ request: any Request,
        to destination: URL,
        resumption: DownloadResumption,
        errorParser: (any ErrorParsing)? = nil,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any Cancellable {
        download(
            request, to: destination, resumption: resumption, errorParser: errorParser, queue: callbackQueue,
            progress: progress, completion: completion)
    }

    private func download(
        _ request: any Request,
        to destination: URL,
        resumption: DownloadResumption,
        errorParser: (any ErrorParsing)?,
        queue: OperationQueue?,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any Cancellable {
        let download = ResumingDownload(
            request: request,
            destination: destination,
            resumption: resumption,
            redirectPolicy: redirectPolicy,
            defaultTimeout: defaultTimeout,
            queue: queue,
            progress: progress,
            parse: { $0.requireSuccess(errorParser: errorParser) },
            completion: completion,
            makeTask: { [urlSession, delegate] urlRequest, download in
                let task = urlSession.dataTask(with: urlRequest)
                delegate.register(download, for: task)
                return task
            }
        )
        download.start()
        return download
    }

    /// Uploads the file at `file` as the body of `request`, and parses the response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request to send; its own ``Request/body`` is ignored.
    ///   - file: The file URL whose contents are the body.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    ///   - progress: Called on ``callbackQueue`` with the bytes sent so far, never with a smaller value than
    ///     before, and with the final count before `completion`.
    ///   - completion: Called exactly once on ``callbackQueue`` with the parsed response or the error.
    /// - Returns: A handle that cancels the upload.
    @discardableResult
    public func upload<T: Parsable>(
        _ request: any Request,
        fromFile file: URL,
        errorParser: (any ErrorParsing)? = nil,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        upload(
            request, fromFile: file, errorParser: errorParser, queue: callbackQueue, progress: progress,
            completion: completion)
    }

    private func upload<T: Parsable>(
        _ request: any Request,
        fromFile file: URL,
        errorParser: (any ErrorParsing)?,
        queue: OperationQueue?,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        let state = TransferState<T>(
            request: request,
            redirectPolicy: redirectPolicy,
            destination: nil,
            queue: queue,
            progress: progress,
            parse: { T.parse(response: $0, errorParser: errorParser) },
            completion: completion
        )
        return start(state) { urlRequest in
            var urlRequest = urlRequest
            urlRequest.httpBody = nil
            return urlSession.uploadTask(with: urlRequest, fromFile: file)
        }
    }

    /// Downloads the response body of `request` into `destination`, reporting progress through an `AsyncSequence`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - destination: The file URL to write the body to.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The transfer: await its ``Transfer/value``, iterate its ``Transfer/progress``, or cancel it.
    public func download(
        _ request: any Request,
        to destination: URL,
        errorParser: (any ErrorParsing)? = nil
    ) -> Transfer<Response> {
        Transfer { progress, completion in
            download(
                request, to: destination, errorParser: errorParser, queue: nil, progress: progress,
                completion: completion)
        }
    }

    /// Downloads the response body of `request` into `destination`, resuming from where it stopped when the
    /// connection drops, and reports progress through an `AsyncSequence`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - destination: The file URL to write the body to.
    ///   - resumption: How to resume, retry and check the download.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The transfer: await its ``Transfer/value``, iterate its ``Transfer/progress``, or cancel it.
    public func download(
        _ request: any Request,
        to destination: URL,
        resumption: DownloadResumption,
        errorParser: (any ErrorParsing)? = nil
    ) -> Transfer<Response> {
        Transfer { progress, completion in
            download(
                request, to: destination, resumption: resumption, errorParser: errorParser, queue: nil,
                progress: progress, completion: completion)
        }
    }

    /// Uploads the file at `file` as the body of `request`, reporting progress through an `AsyncSequence`.
    ///
    /// - Parameters:
    ///   - request: The request to send; its own ``Request/body`` is ignored.
    ///   - file: The file URL whose contents are the body.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The transfer: await its ``Transfer/value`` (the response parsed as `T`), iterate its
    ///   ``Transfer/progress``, or cancel it.
    public func upload<T: Parsable>(
        _ request: any Request,
        fromFile file: URL,
        errorParser: (any ErrorParsing)? = nil
    ) -> Transfer<T> {
        Transfer { progress, completion in
            upload(
                request, fromFile: file, errorParser: errorParser, queue: nil, progress: progress,
                completion: completion)
        }
    }

    private func start<Value>(
        _ state: TransferState<Value>,
        makeTask: (URLRequest) -> URLSessionTask
    ) -> any Cancellable {
        switch Exchange.makeURLRequest(for: state.request, defaultTimeout: defaultTimeout) {
        case .success(var urlRequest):
            let timeout = TransferState<Value>.deadline(of: state.request, adjusting: &urlRequest)
            let task = makeTask(urlRequest)
            delegate.register(state, for: task)
            state.start(task, timeout: timeout)
        case .failure(let error):
            state.fail(error)
        }
        return state
    }
}

/// The progress values a ``Transfer`` has not handed to its reader yet.
///
/// It keeps the newest 256 values: a slow reader loses the oldest byte counts, never an event
/// (``TransferProgress/event``) nor the newest value. So memory stays bounded (beyond 256 values, by the number of
/// events, which the retry policy bounds) and the last value read is the final count.
private final class ProgressBuffer: Sendable {
    private static var limit: Int { 256 }

    private struct State {
        var values: [TransferProgress] = []
        var isFinished = false
        var reader: CheckedContinuation<TransferProgress?, Never>?
    }

    private let state = Locked(State())

    func push(_ value: TransferProgress) {
        let reader = state.withLock { state -> CheckedContinuation<TransferProgress?, Never>? in
            guard !state.isFinished else {
                return nil
            }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            if state.values.count >= Self.limit, let oldest = state.values.firstIndex(where: { $0.event == nil }) {
                state.values.remove(at: oldest)
            }
            state.values.append(value)
            return nil
        }
        reader?.resume(returning: value)
    }

    func finish() {
        let reader = state.withLock { state -> CheckedContinuation<TransferProgress?, Never>? in
            state.isFinished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
    }

    /// The next value, waiting for it; `nil` once the transfer has ended and every value has been read.
    func next() async -> TransferProgress? {
        await withCheckedContinuation { continuation in
            let value = state.withLock { state -> TransferProgress?? in
                if !state.values.isEmpty {
                    return .some(state.values.removeFirst())
                }
                if state.isFinished {
                    return .some(nil)
                }
                state.reader = continuation
                return nil
            }
            if let value {
                continuation.resume(returning: value)
            }
        }
    }
}

/// A download or upload in flight, for `async` code: its progress as an `AsyncSequence`, its result to await.
///
/// Cancelling the `Task` that awaits ``value`` cancels the transfer, as ``cancel()`` does.
public final class Transfer<Value: Sendable>: Cancellable {
    /// The progress values, in order, ending when the transfer ends. Iterate it once.
    public let progress: AsyncStream<TransferProgress>

    private let outcome = Locked(Outcome.running([]))
    private let call = Locked<(any Cancellable)?>(nil)

    private enum Outcome {
        case running([CheckedContinuation<Value, any Error>])
        case finished(Result<Value, any Error>)
    }

    init(
        start: (
            @escaping @Sendable (TransferProgress) -> Void, @escaping @Sendable (Result<Value, any Error>) -> Void
        ) -> any Cancellable
    ) {
        let buffer = ProgressBuffer()
        progress = AsyncStream(unfolding: { await buffer.next() })
        let report: @Sendable (Result<Value, any Error>) -> Void = { [outcome] result in
            buffer.finish()
            let waiting = outcome.withLock { outcome -> [CheckedContinuation<Value, any Error>] in
                guard case .running(let waiting) = outcome else {
                    return []
                }
                outcome = .finished(result)
                return waiting
            }
            for waiter in waiting {
                waiter.resume(with: result)
            }
        }
        let cancellable = start({ buffer.push($0) }, report)
        call.withLock { $0 = cancellable }
    }

    /// The transfer's result: the response of a download (its body in the destination file), or the parsed
    /// response of an upload.
    ///
    /// - Throws: What the callback form's completion would fail with; ``FetchError/cancelled(request:)`` when cancelled.
    public var value: Value {
        get async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let finished = outcome.withLock { outcome -> Result<Value, any Error>? in
                        switch outcome {
                        case .running(let waiting):
                            outcome = .running(waiting + [continuation])
                            return nil
                        case .finished(let result):
                            return result
                        }
                    }
                    if let finished {
                        continuation.resume(with: finished)
                    }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// Cancels the transfer; ``value`` throws ``FetchError/cancelled(request:)`` and ``progress`` ends.
    public func cancel() {
        call.withLock { $0 }?.cancel()
    }
}
