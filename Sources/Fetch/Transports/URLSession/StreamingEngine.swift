import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests whose bodies are read as they arrive, through a `URLSession` data delegate of its own.
///
/// `URLSession.bytes(for:)` does not exist in swift-corelibs-foundation, and there a task's data reaches only the
/// session's delegate (a task's own `delegate` gets no data), so the engine owns a `URLSession` whose delegate it is.
/// The delegate hands each chunk to the stream's ``ChunkBuffer`` as it arrives (on swift-corelibs-foundation
/// inline, on libcurl's queue: see ``InlineDelegateQueue``) and applies the ``RedirectPolicy``.
///
/// On Apple platforms a task's own delegate sees its data on any `URLSession`: an engine ``init(sharing:redirectPolicy:)``
/// sends through a caller's `URLSession`, giving each task a delegate of its own, so that the caller's session
/// delegate still decides authentication challenges and server trust for streams.
///
/// One engine serves any number of streams. It keeps its `URLSession` (and itself, its delegate) alive until
/// ``finishAndInvalidate()``, after which the streams in flight still run to their end. A sharing engine is kept
/// alive by its tasks' delegates until each task completes.
package final class StreamingEngine: NSObject, Sendable {
    /// The `URLSession` that sends the streamed requests.
    package let urlSession: URLSession
    private let redirectPolicy: RedirectPolicy
    private let calls = Locked([Int: StreamCall]())
    /// Whether ``urlSession`` is a caller's, whose tasks each get a delegate of the engine's.
    private let isShared: Bool

    /// Creates an engine with a `URLSession` of its own, made from `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The configuration of the engine's `URLSession`.
    ///   - redirectPolicy: How redirects are followed.
    package init(configuration: URLSessionConfiguration, redirectPolicy: RedirectPolicy) {
        let delegate = Delegate()
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            let operationQueue: OperationQueue = InlineDelegateQueue()
        #else
            let operationQueue = OperationQueue()
            operationQueue.name = "Fetch.StreamingEngine.delegate"
            operationQueue.maxConcurrentOperationCount = 1
        #endif
        self.redirectPolicy = redirectPolicy
        self.urlSession = URLSession(
            configuration: Session.safeToCancel(configuration), delegate: delegate, delegateQueue: operationQueue)
        self.isShared = false
        super.init()
        delegate.engine.withLock { $0 = self }
    }

    /// Creates an engine that sends through `urlSession`, a caller's, with a delegate of its own on each task.
    ///
    /// - Parameters:
    ///   - urlSession: The `URLSession` to send through; the engine never invalidates it.
    ///   - redirectPolicy: How redirects are followed.
    package init(sharing urlSession: URLSession, redirectPolicy: RedirectPolicy) {
        self.urlSession = urlSession
        self.redirectPolicy = redirectPolicy
        self.isShared = true
        super.init()
    }

    /// Lets the streams in flight run to their end, then releases the `URLSession` the engine made.
    package func finishAndInvalidate() {
        if !isShared {
            urlSession.finishTasksAndInvalidate()
        }
    }

    /// Cancels every stream in flight: one still opening completes with ``FetchError/cancelled(request:)``, one
    /// being read throws it from its next read. For `Session.cancelAllTasks()`.
    package func cancelAll() {
        let inFlight = calls.withLock { Array($0.values) }
        for call in inFlight {
            call.cancel()
        }
    }

    /// Sends `urlRequest` and calls `completion` once the response head of any status has arrived, with the
    /// stream of its body, or with the failure that kept a head from arriving.
    ///
    /// - Parameters:
    ///   - urlRequest: The request to send.
    ///   - request: The request it was made from, which the response answers.
    ///   - maximumBufferSize: How many unread bytes may wait in memory before back-pressure applies.
    ///   - completion: Called exactly once: with the stream, or with a ``FetchError`` for a transport failure, a
    ///     refused redirect or a cancellation.
    /// - Returns: The call, which cancels it.
    func stream(
        _ urlRequest: URLRequest,
        for request: any Request,
        maximumBufferSize: Int,
        completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
    ) -> StreamCall {
        let task = urlSession.dataTask(with: urlRequest)
        if isShared {
            // The task keeps its delegate, and so the engine, until it completes.
            let delegate = Delegate()
            delegate.engine.withLock { $0 = self }
            task.delegate = delegate
        }
        let call = StreamCall(
            task: task, request: request, originalURL: urlRequest.url ?? request.url,
            maximumBufferSize: maximumBufferSize)
        calls.withLock { $0[task.taskIdentifier] = call }
        if call.open(completion) {
            task.resume()
        } else {
            // Cancelled before it started: a task never resumed would keep the URLSession from invalidating.
            calls.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
            task.cancel()
        }
        return call
    }

    private func call(for task: URLSessionTask) -> StreamCall? {
        calls.withLock { $0[task.taskIdentifier] }
    }

    private func remove(_ task: URLSessionTask) {
        calls.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
    }

    /// The `URLSession` delegate, or on a shared `URLSession` each task's. It holds the engine, and the `URLSession`
    /// (or the task) holds it until it is invalidated (or completes): that cycle is what keeps an engine alive while
    /// its streams run, and ``finishAndInvalidate()`` ends it.
    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        let engine = Locked<StreamingEngine?>(nil)

        private var current: StreamingEngine? {
            engine.withLock { $0 }
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            guard let call = current?.call(for: dataTask) else {
                completionHandler(.cancel)
                return
            }
            completionHandler(call.receive(response) ? .allow : .cancel)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            current?.call(for: dataTask)?.receive(data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let engine = current, let call = engine.call(for: task) else {
                return
            }
            engine.remove(task)
            call.complete(error: error)
        }

        #if !canImport(FoundationNetworking) || FETCH_APPLE_BRANCHES
            /// Keeps what the platform measured of the task, which arrives before it completes (Apple platforms;
            /// swift-corelibs-foundation never calls it).
            func urlSession(
                _ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics
            ) {
                current?.call(for: task)?.collect(AttemptMetrics(collected: metrics))
            }
        #endif

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            guard let engine = current, let call = engine.call(for: task) else {
                completionHandler(nil)
                return
            }
            completionHandler(call.redirect(after: response, to: request, policy: engine.redirectPolicy))
        }
    }
}
