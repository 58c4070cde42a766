import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``RequestPerforming`` object an app uses: it sends requests through a `URLSession`, parses each response off
/// the callback queue, and delivers only the finished result on the callback queue.
///
/// ```swift
/// let session = Session()
/// session.perform(GetUser(id: 1)) { (result: Result<User, any Error>) in
///     // on the main queue
/// }
/// let user: User = try await session.perform(GetUser(id: 1))
/// ```
///
/// Each completion is called exactly once: with the result, with an error, or with ``FetchError/cancelled`` when the
/// call is cancelled first; never twice, and never after a cancellation was reported.
public final class Session: RequestPerforming {
    /// The `URLSession` that sends the requests.
    public let urlSession: URLSession

    /// The queue on which callback-form completions are called. The `async` forms do not use it.
    public let callbackQueue: OperationQueue

    /// How redirects are followed, and which headers never travel to another origin.
    public let redirectPolicy: RedirectPolicy

    private let defaultTimeout: TimeInterval
    private let ownsURLSession: Bool
    private let calls = CallRegistry()

    /// Creates a session that sends requests through an existing `URLSession`.
    ///
    /// - Parameters:
    ///   - session: The `URLSession` to use. The default is `URLSession.shared`.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue; command-line
    ///     programs and servers, whose main queue may never run, pass a queue of their own or use the `async` forms.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects; it holds for `URLSession.shared` too.
    public init(
        session: URLSession = .shared,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default
    ) {
        self.urlSession = session
        self.callbackQueue = callbackQueue
        self.redirectPolicy = redirectPolicy
        self.defaultTimeout = session.configuration.timeoutIntervalForRequest
        self.ownsURLSession = false
    }

    /// Creates a session that owns a `URLSession` made from `configuration`, and invalidates it when released.
    ///
    /// - Parameters:
    ///   - configuration: The configuration of the new `URLSession`: timeouts, headers, cache, protocol classes.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects.
    public init(
        configuration: URLSessionConfiguration,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default
    ) {
        let delegateQueue = OperationQueue()
        delegateQueue.name = "Fetch.Session.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        self.urlSession = URLSession(configuration: configuration, delegate: nil, delegateQueue: delegateQueue)
        self.callbackQueue = callbackQueue
        self.redirectPolicy = redirectPolicy
        self.defaultTimeout = configuration.timeoutIntervalForRequest
        self.ownsURLSession = true
    }

    deinit {
        if ownsURLSession {
            urlSession.finishTasksAndInvalidate()
        }
    }

    /// Sends a request and parses its response as `T` off the callback queue.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once on ``callbackQueue`` with the parsed value or the error.
    /// - Returns: A handle that cancels the call; a cancelled call completes with ``FetchError/cancelled``.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        let deliver = Delivery(callbackQueue: callbackQueue, completion: completion)
        var urlRequest: URLRequest
        switch Exchange.makeURLRequest(for: request, defaultTimeout: defaultTimeout) {
        case .success(let built):
            urlRequest = built
        case .failure(let error):
            deliver(.failure(error))
            return CompletedCall()
        }
        let call = Call(registry: calls, redirectPolicy: redirectPolicy, originalURL: urlRequest.url ?? request.url) {
            error in
            deliver(.failure(error))
        }
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation truncates timeouts to whole seconds, so 0.5 s times out at once and 1.5 s
            // after 1 s. Fetch keeps the exact timeout itself and gives URLSession the next whole second.
            let timeout = urlRequest.timeoutInterval
            if timeout > 0, timeout.rounded(.up) != timeout {
                urlRequest.timeoutInterval = timeout.rounded(.up)
                call.endWithTimeout(after: timeout)
            }
        #endif
        let task = urlSession.dataTask(with: urlRequest) { data, urlResponse, error in
            guard !call.isFinished else {
                return
            }
            let result: Result<T, any Error> =
                if let refusal = call.redirectRefusal {
                    .failure(refusal)
                } else {
                    Exchange.result(
                        for: request,
                        data: data,
                        urlResponse: urlResponse,
                        error: error,
                        errorParser: errorParser
                    )
                }
            if call.finish() {
                deliver(result)
            }
        }
        task.delegate = call
        call.start(task)
        return call
    }

    /// Cancels every call this session has in flight; each completes with ``FetchError/cancelled``.
    ///
    /// Tasks that other code started on the same `URLSession` are left alone.
    public func cancelAllTasks() {
        calls.cancelAll()
    }

}

// MARK: - CallbackQueueProviding

extension Session: CallbackQueueProviding {
    package var deliveryQueue: OperationQueue? { callbackQueue }
}

/// One call of ``Session/perform(_:errorParser:completion:)``: its task, whether it has finished, and its redirects.
///
/// `finish()`, `cancel()` and the timeout race to end the call; whichever wins under `state`'s lock reports it, which
/// is what makes every completion run exactly once. The call is also its task's delegate, applying the session's
/// ``RedirectPolicy``: a task delegate rather than a session delegate, so that the policy holds on any `URLSession`,
/// `.shared` included, and one object per call rather than two.
///
/// `@unchecked Sendable`: its mutable state is behind `state`'s lock.
private final class Call: NSObject, Cancellable, URLSessionTaskDelegate, @unchecked Sendable {
    private enum Phase {
        case created
        case running(URLSessionTask)
        case finished
    }

    private struct State {
        var phase = Phase.created
        var timer: (any DispatchSourceTimer)?
        var redirects: RedirectTracker
    }

    private let state: Locked<State>
    private let registry: CallRegistry
    private let redirectPolicy: RedirectPolicy
    private let report: @Sendable (FetchError) -> Void

    /// - Parameters:
    ///   - registry: The registry of the session's calls in flight.
    ///   - redirectPolicy: How the call follows redirects.
    ///   - originalURL: The URL the request is first sent to.
    ///   - report: Delivers the error of a call that Fetch ends itself: cancelled or timed out.
    init(
        registry: CallRegistry,
        redirectPolicy: RedirectPolicy,
        originalURL: URL,
        report: @escaping @Sendable (FetchError) -> Void
    ) {
        self.state = Locked(State(redirects: RedirectTracker(originalURL: originalURL)))
        self.registry = registry
        self.redirectPolicy = redirectPolicy
        self.report = report
    }

    var isFinished: Bool {
        state.withLock { state in
            if case .finished = state.phase {
                return true
            }
            return false
        }
    }

    /// Why the last redirect was refused, if it was: the call fails with this error rather than the 3xx response.
    var redirectRefusal: FetchError? {
        state.withLock { $0.redirects.refusal }
    }

    /// Registers the call and resumes `task`, unless the call was cancelled meanwhile.
    func start(_ task: URLSessionTask) {
        // Registered before it can finish, so that `finish()` or `cancel()` always find it to remove.
        registry.insert(self)
        let started = state.withLock { state in
            guard case .created = state.phase else {
                return false
            }
            state.phase = .running(task)
            return true
        }
        guard started else {
            registry.remove(self)
            task.cancel()
            return
        }
        task.resume()
    }

    /// Ends the call with ``FetchError/timedOut`` after `seconds`, unless it has finished by then.
    func endWithTimeout(after seconds: TimeInterval) {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + seconds)
        source.setEventHandler { [weak self] in
            self?.end(with: .timedOut)
        }
        state.withLock { $0.timer = source }
        source.resume()
    }

    /// Marks the call finished; returns whether this caller is the one that ends it and must report the result.
    func finish() -> Bool {
        let timer = state.withLock { state -> (any DispatchSourceTimer)?? in
            if case .finished = state.phase {
                return nil
            }
            state.phase = .finished
            defer { state.timer = nil }
            return .some(state.timer)
        }
        guard let timer else {
            return false
        }
        timer?.cancel()
        registry.remove(self)
        return true
    }

    func cancel() {
        end(with: .cancelled)
    }

    private func end(with error: FetchError) {
        let ended = state.withLock { state -> (task: URLSessionTask?, timer: (any DispatchSourceTimer)?)? in
            let task: URLSessionTask?
            switch state.phase {
            case .finished:
                return nil
            case .created:
                task = nil
            case .running(let running):
                task = running
            }
            state.phase = .finished
            defer { state.timer = nil }
            return (task, state.timer)
        }
        guard let ended else {
            return
        }
        ended.task?.cancel()
        ended.timer?.cancel()
        registry.remove(self)
        report(error)
    }

    // MARK: URLSessionTaskDelegate

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let next = state.withLock { $0.redirects.next(after: response, redirect: request, policy: redirectPolicy) }
        completionHandler(next)
    }
}

/// The calls a ``Session`` has in flight, for ``Session/cancelAllTasks()``.
private final class CallRegistry: Sendable {
    private let calls = Locked([ObjectIdentifier: Call]())

    func insert(_ call: Call) {
        calls.withLock { $0[ObjectIdentifier(call)] = call }
    }

    func remove(_ call: Call) {
        calls.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(call)) }
    }

    func cancelAll() {
        let inFlight = calls.withLock { Array($0.values) }
        for call in inFlight {
            call.cancel()
        }
    }
}
