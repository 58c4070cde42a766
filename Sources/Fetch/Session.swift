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

    private let defaultTimeout: TimeInterval
    private let ownsURLSession: Bool
    private let calls = CallRegistry()

    /// Creates a session that sends requests through an existing `URLSession`.
    ///
    /// - Parameters:
    ///   - session: The `URLSession` to use. The default is `URLSession.shared`.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue; command-line
    ///     programs and servers, whose main queue may never run, pass a queue of their own or use the `async` forms.
    public init(session: URLSession = .shared, callbackQueue: OperationQueue = .main) {
        self.urlSession = session
        self.callbackQueue = callbackQueue
        self.defaultTimeout = session.configuration.timeoutIntervalForRequest
        self.ownsURLSession = false
    }

    /// Creates a session that owns a `URLSession` made from `configuration`, and invalidates it when released.
    ///
    /// - Parameters:
    ///   - configuration: The configuration of the new `URLSession`: timeouts, headers, cache, protocol classes.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue.
    public init(configuration: URLSessionConfiguration, callbackQueue: OperationQueue = .main) {
        let delegateQueue = OperationQueue()
        delegateQueue.name = "Fetch.Session.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        self.urlSession = URLSession(
            configuration: configuration,
            delegate: SessionDelegate(),
            delegateQueue: delegateQueue
        )
        self.callbackQueue = callbackQueue
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
        let queue = CompletionDelivery.isImmediate ? nil : callbackQueue
        let call = Call(registry: calls) { error in
            Self.deliver(.failure(error), on: queue, to: completion)
        }
        var urlRequest: URLRequest
        switch Exchange.makeURLRequest(for: request, defaultTimeout: defaultTimeout) {
        case .success(let built):
            urlRequest = built
        case .failure(let error):
            if call.finish() {
                Self.deliver(.failure(error), on: queue, to: completion)
            }
            return call
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
            let result: Result<T, any Error> = Exchange.result(
                for: request,
                data: data,
                urlResponse: urlResponse,
                error: error,
                errorParser: errorParser
            )
            if call.finish() {
                Self.deliver(result, on: queue, to: completion)
            }
        }
        call.start(task)
        return call
    }

    /// Cancels every call this session has in flight; each completes with ``FetchError/cancelled``.
    ///
    /// Tasks that other code started on the same `URLSession` are left alone.
    public func cancelAllTasks() {
        calls.cancelAll()
    }

    private static func deliver<T: Sendable>(
        _ result: Result<T, any Error>,
        on queue: OperationQueue?,
        to completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        guard let queue else {
            completion(result)
            return
        }
        queue.addOperation {
            completion(result)
        }
    }
}

/// The `URLSession` delegate of a session that owns its `URLSession`.
private final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {}

/// One call of ``Session/perform(_:errorParser:completion:)``: its task and whether it has finished.
///
/// `finish()`, `cancel()` and the timeout race to end the call; whichever wins under `state`'s lock reports it, which
/// is what makes every completion run exactly once.
private final class Call: Cancellable {
    private enum State {
        case created
        case running(URLSessionTask)
        case finished
    }

    private let state = Locked(State.created)
    private let timer = Locked<(any DispatchSourceTimer)?>(nil)
    private let registry: CallRegistry
    private let report: @Sendable (FetchError) -> Void

    /// - Parameters:
    ///   - registry: The registry of the session's calls in flight.
    ///   - report: Delivers the error of a call that Fetch ends itself: cancelled or timed out.
    init(registry: CallRegistry, report: @escaping @Sendable (FetchError) -> Void) {
        self.registry = registry
        self.report = report
    }

    var isFinished: Bool {
        state.withLock { state in
            if case .finished = state {
                return true
            }
            return false
        }
    }

    /// Registers the call and resumes `task`, unless the call was cancelled meanwhile.
    func start(_ task: URLSessionTask) {
        // Registered before it can finish, so that `finish()` or `cancel()` always find it to remove.
        registry.insert(self)
        let started = state.withLock { state in
            guard case .created = state else {
                return false
            }
            state = .running(task)
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
        timer.withLock { $0 = source }
        source.resume()
    }

    /// Marks the call finished; returns whether this caller is the one that ends it and must report the result.
    func finish() -> Bool {
        let won = state.withLock { state in
            if case .finished = state {
                return false
            }
            state = .finished
            return true
        }
        if won {
            cleanUp()
        }
        return won
    }

    func cancel() {
        end(with: .cancelled)
    }

    private func end(with error: FetchError) {
        let task = state.withLock { state -> URLSessionTask?? in
            switch state {
            case .finished:
                return nil
            case .created:
                state = .finished
                return .some(nil)
            case .running(let task):
                state = .finished
                return .some(task)
            }
        }
        guard let task else {
            return
        }
        task?.cancel()
        cleanUp()
        report(error)
    }

    private func cleanUp() {
        registry.remove(self)
        timer.withLock { $0 }?.cancel()
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
