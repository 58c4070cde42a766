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
/// Each completion is called exactly once: with the result, with an error, or with ``FetchError/cancelled(request:)`` when the
/// call is cancelled first; never twice, and never after a cancellation was reported. A session is a ``Pipeline``
/// with no middlewares: every stack built on it (`session.retrying().observing { … }`) delivers on its
/// ``callbackQueue`` too.
public final class Session: RequestPerforming {
    /// The `URLSession` that sends the requests; `nil` for a session on another transport (libcurl, on Linux).
    public let urlSession: URLSession?

    /// The queue on which callback-form completions are called. The `async` forms do not use it.
    public let callbackQueue: OperationQueue

    /// How redirects are followed, and which headers never travel to another origin.
    public let redirectPolicy: RedirectPolicy

    /// The session's pipeline: no middlewares, the session's transport, and ``callbackQueue``.
    public let pipeline: Pipeline

    /// Cancels every call of the session's transport in flight.
    private let cancelInFlight: @Sendable () -> Void

    /// Creates a session that sends requests through an existing `URLSession`.
    ///
    /// - Parameters:
    ///   - session: The `URLSession` to use. The default is `URLSession.shared`.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue; command-line
    ///     programs and servers, whose main queue may never run, pass a queue of their own or use the `async` forms.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects; it holds for `URLSession.shared` too.
    public convenience init(
        session: URLSession = .shared,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default
    ) {
        self.init(session, owned: false, callbackQueue: callbackQueue, redirectPolicy: redirectPolicy)
    }

    /// Creates a session that owns a `URLSession` made from `configuration`, and invalidates it once neither the
    /// session nor any pipeline built on it is left.
    ///
    /// - Parameters:
    ///   - configuration: The configuration of the new `URLSession`: timeouts, headers, protocol classes. On Linux
    ///     its `urlCache` is not used: cancelling a task of a `URLSession` with a cache can crash the process there.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects.
    public convenience init(
        configuration: URLSessionConfiguration,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default
    ) {
        let delegateQueue = OperationQueue()
        delegateQueue.name = "Fetch.Session.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        let urlSession = URLSession(
            configuration: Self.safeToCancel(configuration), delegate: nil, delegateQueue: delegateQueue)
        self.init(urlSession, owned: true, callbackQueue: callbackQueue, redirectPolicy: redirectPolicy)
    }

    private convenience init(
        _ urlSession: URLSession,
        owned: Bool,
        callbackQueue: OperationQueue,
        redirectPolicy: RedirectPolicy
    ) {
        let transport = URLSessionTransport(urlSession: urlSession, owned: owned, redirectPolicy: redirectPolicy)
        self.init(
            transport, urlSession: urlSession, callbackQueue: callbackQueue, redirectPolicy: redirectPolicy,
            cancelInFlight: { transport.cancelAll() })
    }

    /// Creates a session on `transport`, which `cancelInFlight` cancels every call of.
    init(
        _ transport: any Transport,
        urlSession: URLSession?,
        callbackQueue: OperationQueue,
        redirectPolicy: RedirectPolicy,
        cancelInFlight: @escaping @Sendable () -> Void
    ) {
        self.urlSession = urlSession
        self.callbackQueue = callbackQueue
        self.redirectPolicy = redirectPolicy
        self.pipeline = Pipeline(transport, callbackQueue: callbackQueue)
        self.cancelInFlight = cancelInFlight
    }

    /// `configuration`, without a `URLCache` on Linux.
    ///
    /// swift-corelibs-foundation reads a `URLCache` on a background queue before a task's protocol exists; a cancel
    /// that lands then reports its failure after the task has left the session's registry, and the process traps
    /// ("Trying to access a behaviour for a task that in not in the registry"). Fetch cancels tasks as a matter of
    /// course, so a session it owns has no `URLCache` there; `CachingPerformer` is Fetch's cache.
    static func safeToCancel(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        #if canImport(FoundationNetworking)
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
    ///   - completion: Called exactly once on ``callbackQueue`` with the parsed value or the error.
    /// - Returns: A handle that cancels the call; a cancelled call completes with ``FetchError/cancelled(request:)``.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }

    /// Cancels every call this session has in flight, whatever middlewares they went through; each completes with
    /// ``FetchError/cancelled(request:)``.
    ///
    /// Tasks that other code started on the same `URLSession` are left alone.
    public func cancelAllTasks() {
        cancelInFlight()
    }
}
