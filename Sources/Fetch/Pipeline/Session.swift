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
/// with no middlewares: every stack built on it (`session.with(.observe { … }, .retry())`) delivers on its
/// ``callbackQueue`` too.
public final class Session: RequestPerforming {
    /// The `URLSession` that sends the requests; `nil` for a session on another transport (libcurl, on Linux).
    public let urlSession: URLSession?

    /// The queue on which callback-form completions are called. The `async` forms do not use it.
    public let callbackQueue: OperationQueue

    /// How redirects are followed, and which headers never travel to another origin.
    public let redirectPolicy: RedirectPolicy

    /// The most bytes of a response body read into memory, unless the request sets its own
    /// (``Request/maximumResponseSize``): a body that grows past it ends the call with
    /// ``FetchError/responseTooLarge(limit:request:)``, so that a broken or hostile server cannot make the process
    /// buffer without bound. The limit counts decoded bytes, so a compressed body that inflates is caught too.
    /// Streams are not limited.
    ///
    /// Every session counts the bytes as they arrive and stops reading at the limit, except on Linux over a
    /// `URLSession` you pass that has a delegate of its own: swift-corelibs-foundation tells only that delegate of
    /// each chunk, so there the body is read whole before the limit can be checked.
    public let maximumResponseSize: Int

    /// The default ``maximumResponseSize``: 100 MiB.
    public static let defaultMaximumResponseSize = 100 << 20

    /// The session's pipeline: no middlewares, the session's transport, and ``callbackQueue``.
    public let pipeline: Pipeline

    /// Cancels every call of the session's transport in flight.
    private let cancelInFlight: @Sendable () -> Void

    /// Creates a session that sends requests through an existing `URLSession`.
    ///
    /// On Linux, a `URLSession` without a delegate (`URLSession.shared`, the default, or one made with
    /// `URLSession(configuration:)`) cannot show Fetch a body as it arrives; the session then sends through a
    /// `URLSession` of its own made from that one's configuration, as
    /// ``init(configuration:callbackQueue:redirectPolicy:maximumResponseSize:)`` does, and ``urlSession`` is that
    /// one. See <doc:PlatformDifferences>.
    ///
    /// - Parameters:
    ///   - session: The `URLSession` to use. The default is `URLSession.shared`.
    ///   - callbackQueue: The queue on which completions are called. The default is the main queue; command-line
    ///     programs and servers, whose main queue may never run, pass a queue of their own or use the `async` forms.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects; it holds for `URLSession.shared` too.
    ///   - maximumResponseSize: The most bytes of a response body (see ``maximumResponseSize``). The default is
    ///     100 MiB.
    public convenience init(
        session: URLSession = .shared,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = Session.defaultMaximumResponseSize
    ) {
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation hands a body's chunks only to the session's delegate, never to a task's: over
            // a session without one, the size limit could hold only once the whole body is in memory.
            if session.delegate == nil {
                self.init(
                    configuration: session.configuration, callbackQueue: callbackQueue,
                    redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize)
                return
            }
        #endif
        self.init(
            session, tasks: TaskDelegate(redirectPolicy: redirectPolicy), owned: false, callbackQueue: callbackQueue,
            maximumResponseSize: maximumResponseSize)
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
    ///   - maximumResponseSize: The most bytes of a response body; reading stops there. The default is 100 MiB.
    public convenience init(
        configuration: URLSessionConfiguration,
        callbackQueue: OperationQueue = .main,
        redirectPolicy: RedirectPolicy = .default,
        maximumResponseSize: Int = Session.defaultMaximumResponseSize
    ) {
        #if canImport(FoundationNetworking)
            // The pipeline hands each answer on to its parsing queue itself (or a bare session's `async` caller takes
            // it at once), so there is no need for a delegate queue in between: one thread hop fewer per call (see
            // `RestrictedThreadTransport`).
            let delegateQueue: OperationQueue = InlineDelegateQueue()
        #else
            let delegateQueue = OperationQueue()
            delegateQueue.name = "Fetch.Session.delegate"
            delegateQueue.maxConcurrentOperationCount = 1
        #endif
        // Fetch's delegate sees each body arrive, to stop it at the size limit. The `URLSession` keeps its delegate
        // until it is invalidated; the delegate does not keep the `URLSession`.
        let tasks = TaskDelegate(redirectPolicy: redirectPolicy)
        let urlSession = URLSession(
            configuration: Self.safeToCancel(configuration), delegate: tasks, delegateQueue: delegateQueue)
        self.init(
            urlSession, tasks: tasks, owned: true, callbackQueue: callbackQueue,
            maximumResponseSize: maximumResponseSize)
    }

    private convenience init(
        _ urlSession: URLSession,
        tasks: TaskDelegate,
        owned: Bool,
        callbackQueue: OperationQueue,
        maximumResponseSize: Int
    ) {
        let transport = URLSessionTransport(
            urlSession: urlSession, owned: owned, tasks: tasks, maximumResponseSize: maximumResponseSize)
        self.init(
            transport, urlSession: urlSession, callbackQueue: callbackQueue, redirectPolicy: tasks.redirectPolicy,
            maximumResponseSize: maximumResponseSize, cancelInFlight: { transport.cancelAll() })
    }

    /// Creates a session on `transport`, which `cancelInFlight` cancels every call of.
    init(
        _ transport: any Transport,
        urlSession: URLSession?,
        callbackQueue: OperationQueue,
        redirectPolicy: RedirectPolicy,
        maximumResponseSize: Int,
        cancelInFlight: @escaping @Sendable () -> Void
    ) {
        self.urlSession = urlSession
        self.callbackQueue = callbackQueue
        self.redirectPolicy = redirectPolicy
        self.maximumResponseSize = maximumResponseSize
        self.pipeline = Pipeline(transport, callbackQueue: callbackQueue)
        self.cancelInFlight = cancelInFlight
    }

    /// `configuration`, without a `URLCache` on Linux.
    ///
    /// swift-corelibs-foundation reads a `URLCache` on a background queue before a task's protocol exists; a cancel
    /// that lands then reports its failure after the task has left the session's registry, and the process traps
    /// ("Trying to access a behaviour for a task that in not in the registry"). Fetch cancels tasks as a matter of
    /// course, so a session it owns has no `URLCache` there; `ResponseCache` is Fetch's cache.
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
