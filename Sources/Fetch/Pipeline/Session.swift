import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``RequestPerforming`` object an app uses: it sends requests through a ``Transport``, parses each response off
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
/// Each completion is called exactly once: with the result, with an error, or with ``FetchError/cancelled(request:)`` when the
/// call is cancelled first; never twice, and never after a cancellation was reported. A session is a ``Pipeline``
/// with no middlewares: every stack built on it (`session.with(.observe { … }, .retry())`) delivers on the
/// session's callback queue too.
public final class Session: RequestPerforming {
    /// The queue on which callback-form completions are called. The `async` forms do not use it.
    package let callbackQueue: OperationQueue

    /// The session's pipeline: no middlewares, the session's transport, and its callback queue.
    public let pipeline: Pipeline

    /// What sends the session's requests.
    package let transport: any Transport

    /// Creates a session that sends its requests through `transport`.
    ///
    /// ```swift
    /// let session = Session(transport: URLSessionTransport(configuration: .ephemeral), callbackQueue: queue)
    /// ```
    ///
    /// - Parameters:
    ///   - transport: What sends the requests. The default is a ``URLSessionTransport`` over `URLSession.shared`,
    ///     which sends and keeps no cookies on any platform, as ``CurlTransport`` does without a store of yours.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue; command-line
    ///     programs and servers, whose main queue may never run, pass a queue of their own or use the `async` forms.
    public init(transport: some Transport = URLSessionTransport(), callbackQueue: OperationQueue = .main) {
        self.transport = transport
        self.callbackQueue = callbackQueue
        self.pipeline = Pipeline(transport, callbackQueue: callbackQueue)
    }

    /// `configuration`, without a `URLCache` on Linux.
    ///
    /// swift-corelibs-foundation reads a `URLCache` on a background queue before a task's protocol exists; a cancel
    /// that lands then reports its failure after the task has left the session's registry, and the process traps
    /// ("Trying to access a behaviour for a task that in not in the registry"). Fetch cancels tasks as a matter of
    /// course, so a session it owns has no `URLCache` there; `ResponseCache` is Fetch's cache.
    static func safeToCancel(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            guard configuration.urlCache != nil, let copy = configuration.copy() as? URLSessionConfiguration else {
                return configuration
            }
            copy.urlCache = nil
            return copy
        #else
            return configuration
        #endif
    }

    /// Sends a request and parses its response as `T` off the callback queue.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once on the session's callback queue with the parsed value or the error.
    /// - Returns: A handle that cancels the call; a cancelled call completes with ``FetchError/cancelled(request:)``.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }

    /// Cancels every call this session's transport has in flight, whatever middlewares they went through; each
    /// completes with ``FetchError/cancelled(request:)``.
    ///
    /// Tasks that other code started on the same `URLSession` are left alone. A transport of your own is not reached:
    /// cancel its calls through their handles.
    public func cancelAllTasks() {
        pipeline.cancelAllTasks()
    }
}
