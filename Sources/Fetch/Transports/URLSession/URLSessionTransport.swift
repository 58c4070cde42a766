import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``Transport`` that sends each request as a `URLSession` data task, with exact timeouts, a
/// ``RedirectPolicy`` and a bound on the bytes read into memory: the default of ``Session``.
///
/// ```swift
/// let session = Session(transport: URLSessionTransport(configuration: .ephemeral), callbackQueue: queue)
/// ```
///
/// A request's own ``Request/timeout`` is the whole exchange, redirects included. A request without one keeps
/// `URLSession`'s meaning of the configuration's `timeoutIntervalForRequest` (60 s by default): how long the server
/// may send nothing, however long the whole exchange takes; `timeoutIntervalForResource` bounds it all. A body that grows past the size limit ends the call with
/// ``FetchError/responseTooLarge(limit:request:)``, so that a broken or hostile server cannot make the process buffer
/// without bound; the limit counts decoded bytes, and a request may set its own (``Request/maximumResponseSize``).
/// Streams are not limited. Cookies are kept only in a store of your choosing: the `httpCookieStorage` of the
/// configuration or `URLSession` you pass (`.ephemeral`'s keeps them in memory). Over `URLSession.shared`, the
/// default and ``Session``'s, no cookie is sent or kept, as on ``CurlTransport``; on Linux its storage would write
/// them to a file in the user's home. A request that sets its own `Cookie` header is sent with exactly that header:
/// the `URLSession`'s cookie storage neither adds to it nor keeps the cookies of its response. Where a transport over a
/// `URLSession` of yours differs by platform: <doc:PlatformDifferences>.
///
/// A `URLRequest` holds one value per field name, so the values of a field a request sends more than once are
/// combined in order, as RFC 9110 §5.3 allows: joined with `, `, and `Cookie`'s with `; ` (RFC 6265 §5.4). Field
/// names and the order of different names are Foundation's. ``CurlTransport`` sends them apart, in order.
public struct URLSessionTransport: RestrictedThreadTransport, CancellingTransport, RedirectFollowing {
    /// The `URLSession` that sends the requests.
    package let urlSession: URLSession
    let defaultTimeout: TimeInterval
    /// The delegate of every task the transport starts, which keeps the calls in flight; the `URLSession`'s own
    /// delegate too when the transport made it, so that it sees each body arrive and can stop it at the size limit.
    private let tasks: TaskDelegate
    /// The most bytes of a body read into memory, unless the request sets its own.
    private let maximumResponseSize: Int
    /// How redirects are followed.
    package var redirectPolicy: RedirectPolicy { tasks.redirectPolicy }
    /// Whether the `URLSession` calls its completion handlers inline, on swift-corelibs-foundation's own serial queue
    /// (an ``InlineDelegateQueue``), where middlewares must not run.
    package let sendsCompleteOnRestrictedThread: Bool

    /// Whether streams' heads arrive there: on swift-corelibs-foundation, where the ``StreamingEngine``'s delegate
    /// runs inline, unless streams are read whole like any other body.
    package var streamsCompleteOnRestrictedThread: Bool {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            streams == nil ? sendsCompleteOnRestrictedThread : true
        #else
            false
        #endif
    }
    /// Invalidates an owned `URLSession` once no pipeline uses it any more, and on Linux makes the one without
    /// cookie storage.
    private let owner: Owner?
    /// Whether every request keeps the `URLSession`'s cookie storage out: over `URLSession.shared` on Apple
    /// platforms, where `httpShouldHandleCookies` holds (on Linux that session's configuration is copied without).
    private let sendsNoCookies: Bool
    /// Sends the streamed requests; `nil` when they are read whole through ``send(_:completion:)``.
    private let streams: Streams?
    /// The identifier of the background configuration the transport was given (read before any copy of it), whose
    /// every call it refuses.
    private let backgroundIdentifier: String?

    /// Creates a transport over a `URLSession` of its own, made from `configuration`, which it invalidates once
    /// neither it nor any session or pipeline built on it is left.
    ///
    /// - Parameters:
    ///   - configuration: The configuration of the new `URLSession`: timeouts, headers, protocol classes. On Linux
    ///     its `urlCache` is not used: cancelling a task of a `URLSession` with a cache can crash the process there.
    ///   - redirectPolicy: How redirects are followed. The default keeps credentials to their origin, refuses
    ///     `https` → `http` and follows up to 10 redirects.
    ///   - maximumResponseSize: The most bytes of a response body read into memory. The default is 100 MiB.
    public init(
        configuration: URLSessionConfiguration,
        redirectPolicy: RedirectPolicy = RedirectPolicy(),
        maximumResponseSize: Int = 100 << 20
    ) {
        self.init(
            configuration: configuration, redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize,
            challenges: nil)
    }

    /// A transport over a `URLSession` of its own, whose task-level authentication challenges go to `challenges`
    /// when there is one (a caller's delegate, on Linux) and streams are read whole there.
    private init(
        configuration: URLSessionConfiguration,
        redirectPolicy: RedirectPolicy,
        maximumResponseSize: Int,
        challenges: TaskDelegate.CallersDelegate?
    ) {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            // The pipeline hands each answer on to its parsing queue itself (or a bare session's `async` caller takes
            // it at once), so there is no need for a delegate queue in between: one thread hop fewer per call (see
            // `RestrictedThreadTransport`).
            let delegateQueue: OperationQueue = InlineDelegateQueue()
        #else
            let delegateQueue = OperationQueue()
            delegateQueue.name = "Fetch.URLSessionTransport.delegate"
            delegateQueue.maxConcurrentOperationCount = 1
        #endif
        // Fetch's delegate sees each body arrive, to stop it at the size limit. The `URLSession` keeps its delegate
        // until it is invalidated; the delegate does not keep the `URLSession`.
        let tasks = TaskDelegate(redirectPolicy: redirectPolicy, challenges: challenges)
        let urlSession = URLSession(
            configuration: Session.safeToCancel(configuration), delegate: tasks, delegateQueue: delegateQueue)
        // A caller's delegate decides challenges only for what goes through `send`: a stream is read whole then.
        let streams =
            challenges == nil
            ? Streams(configuration: urlSession.configuration, redirectPolicy: redirectPolicy) : nil
        self.init(
            urlSession, owned: true, tasks: tasks, maximumResponseSize: maximumResponseSize, streams: streams,
            backgroundIdentifier: configuration.identifier)
    }

    /// Creates a transport over a `URLSession` of yours, whose delegate (if it has one) keeps deciding
    /// authentication challenges, for streams too.
    ///
    /// On Linux, swift-corelibs-foundation shows a body as it arrives only to its `URLSession`'s delegate, so the
    /// transport sends through a `URLSession` of its own made from that one's configuration (the same cookie and
    /// credential storage, headers and protocol classes; its own connections), and the size limit holds as each
    /// body arrives on every `URLSession`. A delegate of yours still decides the task-level authentication
    /// challenges there, on your session's delegate queue and with your session as the argument, but sees no other
    /// event of Fetch's tasks; streams are then read whole, within the size limit. See <doc:PlatformDifferences>.
    ///
    /// - Parameters:
    ///   - session: The `URLSession` to send through. The default is `URLSession.shared`, over which no cookie is
    ///     sent or kept (pass a `URLSession` whose configuration has the cookie storage you choose to keep them).
    ///   - redirectPolicy: How redirects are followed; it holds for `URLSession.shared` too.
    ///   - maximumResponseSize: The most bytes of a response body read into memory. The default is 100 MiB.
    public init(
        session: URLSession = .shared,
        redirectPolicy: RedirectPolicy = RedirectPolicy(),
        maximumResponseSize: Int = 100 << 20
    ) {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            // swift-corelibs-foundation hands a body's chunks only to the session's delegate, never to a task's: over
            // the caller's session the size limit could hold only once the whole body is in memory (an endless body
            // grew the process by gigabytes). A caller's delegate keeps deciding the challenges, as it did there.
            let challenges = (session.delegate as? any URLSessionTaskDelegate).map {
                TaskDelegate.CallersDelegate(session: session, delegate: $0)
            }
            // `URLSession.shared`'s storage is `HTTPCookieStorage.shared`, a file in the user's home: never asked for.
            let configuration =
                session === URLSession.shared ? Self.withoutCookieStorage(session.configuration) : session.configuration
            self.init(
                configuration: configuration, redirectPolicy: redirectPolicy,
                maximumResponseSize: maximumResponseSize, challenges: challenges)
        #else
            // A task's own delegate sees each chunk, on any `URLSession`.
            self.init(
                session, owned: false, tasks: TaskDelegate(redirectPolicy: redirectPolicy),
                maximumResponseSize: maximumResponseSize,
                streams: Streams(sharing: session, redirectPolicy: redirectPolicy),
                backgroundIdentifier: session.configuration.identifier,
                sendsNoCookies: session === URLSession.shared)
        #endif
    }

    private init(
        _ urlSession: URLSession, owned: Bool, tasks: TaskDelegate, maximumResponseSize: Int, streams: Streams?,
        backgroundIdentifier: String?, sendsNoCookies: Bool = false
    ) {
        self.sendsNoCookies = sendsNoCookies
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            self.sendsCompleteOnRestrictedThread = urlSession.delegateQueue is InlineDelegateQueue
        #else
            self.sendsCompleteOnRestrictedThread = false
        #endif
        self.urlSession = urlSession
        self.backgroundIdentifier = backgroundIdentifier
        self.defaultTimeout = urlSession.configuration.timeoutIntervalForRequest
        self.tasks = tasks
        self.maximumResponseSize = maximumResponseSize
        self.owner = owned ? Owner(urlSession) : nil
        self.streams = streams
    }

    /// The ``StreamingEngine``s of a transport's streams, each made on first use and let finish when the last copy
    /// of the transport goes.
    ///
    /// Over a `URLSession` the transport made, streams go through a second one of its own (made from the same
    /// configuration), whose delegate is the engine's: on swift-corelibs-foundation a task's data reaches only its
    /// session's delegate. There, a stream that handles its own cookies goes through a third, without cookie storage
    /// (see ``URLSessionTransport/handlesItsOwnCookies(_:)``). Over a caller's `URLSession` on Apple platforms,
    /// streams go through that session, each task with the engine's delegate as its own.
    private final class Streams: Sendable {
        private let make: @Sendable (_ withCookieStorage: Bool) -> StreamingEngine
        private let engines = Locked<(withCookies: StreamingEngine?, withoutCookies: StreamingEngine?)>((nil, nil))

        init(configuration: URLSessionConfiguration, redirectPolicy: RedirectPolicy) {
            make = { withCookieStorage in
                StreamingEngine(
                    configuration: withCookieStorage
                        ? configuration : URLSessionTransport.withoutCookieStorage(configuration),
                    redirectPolicy: redirectPolicy)
            }
        }

        init(sharing urlSession: URLSession, redirectPolicy: RedirectPolicy) {
            // Apple platforms, where a request's `httpShouldHandleCookies` holds: one engine serves every stream.
            make = { _ in StreamingEngine(sharing: urlSession, redirectPolicy: redirectPolicy) }
        }

        deinit {
            let engines = engines.withLock { $0 }
            engines.withCookies?.finishAndInvalidate()
            engines.withoutCookies?.finishAndInvalidate()
        }

        /// The engine for `urlRequest`: on Linux, the one without cookie storage when it handles its own cookies.
        func engine(for urlRequest: URLRequest) -> StreamingEngine {
            let withCookieStorage = !URLSessionTransport.handlesItsOwnCookies(urlRequest)
            return engines.withLock { engines in
                if let engine = withCookieStorage ? engines.withCookies : engines.withoutCookies {
                    return engine
                }
                let made = make(withCookieStorage)
                if withCookieStorage {
                    engines.withCookies = made
                } else {
                    engines.withoutCookies = made
                }
                return made
            }
        }

        func cancelAll() {
            let engines = engines.withLock { $0 }
            engines.withCookies?.cancelAll()
            engines.withoutCookies?.cancelAll()
        }
    }

    /// Lets tasks in flight finish, then invalidates the `URLSession`s the transport made when released; on Linux,
    /// makes the one without cookie storage on first use.
    private final class Owner: Sendable {
        let urlSession: URLSession
        private let withoutCookies = Locked<URLSession?>(nil)

        init(_ urlSession: URLSession) {
            self.urlSession = urlSession
        }

        deinit {
            urlSession.finishTasksAndInvalidate()
            withoutCookies.withLock { $0 }?.finishTasksAndInvalidate()
        }

        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            /// A `URLSession` like ``urlSession``, with the same delegate and an inline delegate queue too, but no
            /// cookie storage: for the requests that handle their own cookies, on swift-corelibs-foundation.
            var withoutCookieStorage: URLSession {
                withoutCookies.withLock { made in
                    if let made {
                        return made
                    }
                    let session = URLSession(
                        configuration: URLSessionTransport.withoutCookieStorage(urlSession.configuration),
                        delegate: urlSession.delegate, delegateQueue: InlineDelegateQueue())
                    made = session
                    return session
                }
            }
        #endif
    }

    /// Whether `urlRequest` keeps the `URLSession`'s cookie storage out, as a request with a `Cookie` header of its
    /// own does (see ``urlRequest(for:failing:)``), on a platform that does not see to it itself.
    ///
    /// swift-corelibs-foundation ignores `httpShouldHandleCookies` (up to 6.3.1 at least): when a task is made, the
    /// configuration's cookies for the URL replace the request's `Cookie` header, so that one user's `Set-Cookie`
    /// would go out in place of another user's header; and the cookies of every response are stored. Such a request
    /// is sent through a `URLSession` without cookie storage instead. Apple platforms honour the property.
    fileprivate static func handlesItsOwnCookies(_ urlRequest: URLRequest) -> Bool {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            !urlRequest.httpShouldHandleCookies
        #else
            false
        #endif
    }

    /// `configuration` without cookie storage: it neither sets a request's cookies nor keeps a response's.
    fileprivate static func withoutCookieStorage(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        guard let copy = configuration.copy() as? URLSessionConfiguration else {
            return configuration
        }
        copy.httpCookieStorage = nil
        copy.httpShouldSetCookies = false
        copy.httpCookieAcceptPolicy = .never
        return copy
    }

    /// The `URLSession` to send `urlRequest` through: on Linux, one without cookie storage when it handles its own
    /// cookies.
    private func urlSession(for urlRequest: URLRequest) -> URLSession {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            // Every transport owns its `URLSession` on Linux (see `init(session:)`).
            if Self.handlesItsOwnCookies(urlRequest), let owner {
                return owner.withoutCookieStorage
            }
        #endif
        return urlSession
    }

    /// Sends `request` as a data task and answers with its response of any status.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - completion: Called exactly once, with the response or the failure.
    /// - Returns: A handle that cancels the call.
    public func send(
        _ request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        guard let urlRequest = urlRequest(for: request, failing: completion) else {
            return CompletedCall()
        }
        let call = TaskCall(
            registry: tasks.calls, request: request, originalURL: urlRequest.url ?? request.url,
            limit: request.maximumResponseSize ?? maximumResponseSize)
        start(call, sending: urlRequest, for: request, completion: completion)
        return call
    }

    /// Sends `urlRequest` as `call`, and calls `completion` exactly once: with the response, or with the error of a
    /// call that failed, was cancelled, timed out or refused a redirect.
    private func start(
        _ call: TaskCall,
        sending urlRequest: URLRequest,
        for request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        var urlRequest = urlRequest
        let timeout = urlRequest.timeoutInterval
        if request.timeout != nil, timeout > 0, timeout <= Self.longestTimer {
            // A request's own timeout is the whole exchange, as on libcurl: Fetch ends the call then itself.
            // URLSession's is how long the server may stay silent (a server that sends a byte a second would hold
            // the call forever), and swift-corelibs-foundation truncates it to whole seconds; it is set past Fetch's,
            // so that Fetch's deadline always comes first.
            urlRequest.timeoutInterval = timeout.rounded(.up) + 1
            call.endWithTimeout(after: timeout)
        } else if timeout > 0, timeout.rounded(.up) != timeout {
            // The configuration's `timeoutIntervalForRequest` keeps URLSession's meaning: how long the server may
            // stay silent. swift-corelibs-foundation truncates it to whole seconds (0.5 s would time out at once).
            urlRequest.timeoutInterval = timeout.rounded(.up)
        }
        let requestBodyBytes = MeasuredAttempt.bodyBytes(of: urlRequest)
        let answered: TaskCall.Answered = { data, urlResponse, error in
            // Whoever ends the call first reports it: here the answer, unless a cancel or the timeout came first.
            guard let ending = call.finish() else {
                return
            }
            let answer: Result<Response, any Error> =
                if let refusal = ending.redirectRefusal {
                    .failure(refusal.naming(request))
                } else {
                    Exchange.response(
                        for: request, data: data, urlResponse: urlResponse, error: error, timeout: timeout
                    ).map { response in
                        var response = response
                        var metrics = ending.metrics
                        metrics.requestBodyBytes = metrics.requestBodyBytes ?? requestBodyBytes
                        metrics.responseBodyDecodedBytes = data?.count ?? 0
                        response.metrics = metrics
                        return response
                    }
                }
            // The caller gets the answer first; unregistering the call is not on its way.
            defer { ending.release() }
            completion(answer)
        }
        call.whenAnswered(answered)
        // The delegate collects the body, counting it as it arrives: on Apple platforms as the task's own delegate,
        // on any `URLSession`; on Linux as the delegate of the `URLSession`, which is always the transport's.
        let task = urlSession(for: urlRequest).dataTask(with: urlRequest)
        task.delegate = tasks
        call.start(task) { error in completion(.failure(error)) }
    }

    /// The longest timeout Fetch keeps a timer for, in seconds (a year): a longer one is no deadline at all.
    private static let longestTimer: TimeInterval = 365 * 24 * 3600

    /// Sends `request` and hands back its response once the head has arrived, with the body to read as it arrives
    /// (whole, on Linux over a `URLSession` with a delegate of yours).
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - maximumBufferSize: How many unread bytes may wait in memory before reading from the network pauses.
    ///   - completion: Called exactly once, with the stream or the failure that kept a head from arriving.
    /// - Returns: A handle that cancels the request until the head has arrived; then the stream cancels it.
    public func stream(
        _ request: any Request,
        maximumBufferSize: Int,
        completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
    ) -> any CancellableCall {
        guard let streams else {
            // On Linux over a caller's delegate, which alone sees the chunks: the body arrives whole, bounded.
            return send(request) { answer in
                completion(answer.map { ResponseStream(whole: $0) })
            }
        }
        guard let urlRequest = urlRequest(for: request, failing: completion).map(Self.withStreamTimeout) else {
            return CompletedCall()
        }
        return streams.engine(for: urlRequest).stream(
            urlRequest, for: request, maximumBufferSize: maximumBufferSize, completion: completion)
    }

    /// `urlRequest` with a timeout the platform keeps: on swift-corelibs-foundation, which truncates timeouts to
    /// whole seconds (0.5 s would time out at once), rounded up to the next whole second. For a stream the timeout
    /// is how long the server may stay silent, so the next whole second is close enough.
    private static func withStreamTimeout(_ urlRequest: URLRequest) -> URLRequest {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            var urlRequest = urlRequest
            let timeout = urlRequest.timeoutInterval
            if timeout > 0, timeout.rounded(.up) != timeout {
                urlRequest.timeoutInterval = timeout.rounded(.up)
            }
        #endif
        return urlRequest
    }

    /// The `URLRequest` to send for `request`, or `nil` when it cannot be built, `completion` having had the error.
    ///
    /// A request with a `Cookie` header of its own keeps the cookie storage out (`httpShouldHandleCookies` is
    /// `false`): it is sent with exactly that header, and the cookies of its response are not stored, so that one
    /// user's cookies never go out as another's on a shared `URLSession`, and the cookies a request carries never
    /// join the storage for the next request that relies on it.
    private func urlRequest<Answer>(
        for request: any Request,
        failing completion: @Sendable (Result<Answer, any Error>) -> Void
    ) -> URLRequest? {
        if let refusal = backgroundRefusal(of: request) {
            completion(.failure(refusal))
            return nil
        }
        switch Exchange.makeURLRequest(for: request, defaultTimeout: defaultTimeout) {
        case .success(var built):
            if sendsNoCookies || built.value(forHTTPHeaderField: "Cookie") != nil {
                built.httpShouldHandleCookies = false
            }
            return built
        case .failure(let error):
            completion(.failure(error))
            return nil
        }
    }

    /// The error that refuses `request` when the transport's `URLSession` is a background one, or `nil`.
    ///
    /// The transport sets a delegate of its own on every task (to count a body as it arrives, follow its
    /// ``RedirectPolicy`` and end it at its deadline), which Apple does not support in a background session; and a
    /// background session hands data tasks back only while the app runs. A call fails at once, naming the
    /// configuration, rather than misbehave later: use `.default` or `.ephemeral`, and a `URLSession` of your own
    /// for background transfers.
    func backgroundRefusal(of request: any Request) -> FetchError? {
        backgroundIdentifier.map { identifier in
            FetchError.invalidRequest(
                "\(request.method) \(request.url.absoluteString): not sent, URLSessionTransport does not send through"
                    + " a background URLSession (configuration \"\(identifier)\"): it sets a delegate on each task,"
                    + " which background sessions do not support; use a default or ephemeral configuration")
        }
    }

    /// Cancels every call in flight, streams too; each completes with ``FetchError/cancelled(request:)``.
    package func cancelAll() {
        tasks.calls.cancelAll()
        streams?.cancelAll()
    }
}

/// One call of a ``URLSessionTransport``: its task, whether it has finished, and its redirects.
///
/// The answer arriving, `cancel()` and the timeout race to end the call; whichever wins under `state`'s lock reports
/// it, which is what makes every completion run exactly once. A call cancelled or timed out before it starts
/// remembers why, and reports it as soon as it is started, without sending anything.
///
/// A value over one allocation (the state and its lock), because a call is made for every request; copies are the
/// same call.
struct TaskCall: CancellableCall {
    private enum Phase {
        case created
        case running(URLSessionTask, report: @Sendable (FetchError) -> Void)
        /// Ended by Fetch before it started: the error to report when it is started.
        case endedEarly(FetchError)
        case finished
    }

    private struct State {
        var phase = Phase.created
        var timer: (any DispatchSourceTimer)?
        var redirects: RedirectTracker
        /// The body so far, when the session's delegate collects it.
        var body = Data()
        /// What to do with the answer, when the session's delegate collects it.
        var answered: Answered?
        /// Whether the body grew past the limit: nothing more of it is kept.
        var isTooLarge = false
        /// The head of a response whose body is whole once `length` bytes have arrived, so that the call can be
        /// answered then (see ``TaskCall/receive(head:)``).
        var knownLength: (head: HTTPURLResponse, length: Int)?
        /// What Fetch measures of the attempt itself.
        var measured = MeasuredAttempt()
        /// What the platform collected of the task (`URLSessionTaskMetrics`, Apple platforms only).
        var collected: AttemptMetrics?

        /// Lets go of what reports the answer, once the call has ended: `answered` keeps the call itself (and the
        /// caller's completion), so a call that a cancel or the timeout ended would otherwise never be freed.
        mutating func forgetAnswer() {
            timer = nil
            answered = nil
            body = Data()
            knownLength = nil
        }
    }

    /// What a chunk of the body did to the call.
    enum Reception {
        /// More of the body may follow.
        case more
        /// The body is whole: the call has been answered.
        case whole
        /// The body grew past the limit: nothing of it is kept.
        case tooLarge
    }

    /// Reports a task's answer: its body, its response and its error, as a data task's completion handler has them.
    typealias Answered = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    /// How the answer that ended a call is to be reported, and what is left to release once it has been.
    struct Ending {
        /// Why the last redirect was refused, if it was: the call fails with this error rather than the 3xx response.
        let redirectRefusal: FetchError?
        /// What the attempt measured: the platform's metrics when it collected them, Fetch's own otherwise.
        let metrics: AttemptMetrics
        fileprivate let task: URLSessionTask
        fileprivate let timer: (any DispatchSourceTimer)?
        fileprivate let registry: CallRegistry

        /// Cancels the timeout and unregisters the call.
        func release() {
            timer?.cancel()
            registry.remove(task)
        }
    }

    private let state: Locked<State>
    private let registry: CallRegistry
    /// The request: the errors of a call Fetch ends itself name it, and a streamed body is sent again from it.
    let request: any Request
    /// The most bytes of body read into memory.
    let limit: Int

    /// - Parameters:
    ///   - registry: The registry of the session's calls in flight.
    ///   - request: The request, which the call's own errors name.
    ///   - originalURL: The URL the request is first sent to.
    ///   - limit: The most bytes of body read into memory.
    init(registry: CallRegistry, request: any Request, originalURL: URL, limit: Int) {
        self.state = Locked(State(redirects: RedirectTracker(originalURL: originalURL)))
        self.registry = registry
        self.request = request
        self.limit = limit
    }

    /// Sets what reports the answer: the session's delegate calls it once the task completes, when it collects the
    /// body, and an authentication challenge that ends the call does (see ``TaskDelegate``).
    func whenAnswered(_ answered: @escaping Answered) {
        state.withLock { $0.answered = answered }
    }

    /// Whether a body announced as `expectedLength` bytes (or `-1`, unknown) may be read.
    func accepts(expectedLength: Int64) -> Bool {
        expectedLength <= Int64(limit)
    }

    /// Takes note of the response head as the session's delegate receives it: when the head says exactly how long
    /// the body is, the call is answered as soon as that many bytes have arrived.
    ///
    /// The transfer has no more to give then, but `URLSession` reports the task complete only after its own
    /// bookkeeping, about 30 µs later on swift-corelibs-foundation; the caller parses meanwhile. Only a 2xx with a
    /// `Content-Length`, unencoded and not chunked, qualifies: `URLSession` decodes a compressed body (so its length
    /// is not the header's), may answer a 401 again with stored credentials, and follows 3xx itself.
    ///
    /// On Apple platforms the call waits for the task to complete instead, so that the `URLSessionTaskMetrics`
    /// that arrive just before are the response's.
    func receive(head response: URLResponse) {
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            guard let head = response as? HTTPURLResponse, (200..<300).contains(head.statusCode),
                head.expectedContentLength > 0, head.value(forHTTPHeaderField: "Transfer-Encoding") == nil,
                Self.isIdentity(head.value(forHTTPHeaderField: "Content-Encoding"))
            else {
                state.withLock { $0.measured.noteHead() }
                return
            }
            let length = Int(head.expectedContentLength)
            state.withLock { state in
                state.measured.noteHead()
                state.knownLength = (head, length)
            }
        #else
            state.withLock { $0.measured.noteHead() }
        #endif
    }

    /// Keeps the metrics the platform collected of the task, which the response then carries.
    func collect(_ metrics: AttemptMetrics) {
        state.withLock { $0.collected = metrics }
    }

    private static func isIdentity(_ contentEncoding: String?) -> Bool {
        guard let contentEncoding else {
            return true
        }
        return contentEncoding.trimmingCharacters(in: .whitespaces).lowercased() == "identity"
    }

    /// Appends a chunk of the body as the session's delegate receives it, and answers the call once the body is
    /// whole (see ``receive(head:)``). Once the body has grown past the limit, keeps none of it.
    func receive(_ data: Data) -> Reception {
        enum Step {
            case more
            case tooLarge
            case whole(Answered?, head: HTTPURLResponse, body: Data)
        }
        let step = state.withLock { state -> Step in
            guard !state.isTooLarge, state.body.count + data.count <= limit else {
                state.isTooLarge = true
                state.body = Data()
                return .tooLarge
            }
            if state.body.isEmpty {
                // Most bodies arrive in one chunk: keep it as it came, without copying it into a new buffer.
                state.body = data
            } else {
                state.body.append(data)
            }
            guard let known = state.knownLength, state.body.count == known.length else {
                return .more
            }
            defer {
                state.body = Data()
                state.answered = nil
            }
            return .whole(state.answered, head: known.head, body: state.body)
        }
        switch step {
        case .more:
            return .more
        case .tooLarge:
            return .tooLarge
        case .whole(let answered, let head, let body):
            answered?(body, head, nil)
            return .whole
        }
    }

    /// The task completed (or a challenge answered it): hands its body so far, response and error to what
    /// ``whenAnswered(_:)`` set.
    func complete(response: URLResponse?, error: (any Error)?) {
        let (answered, body) = state.withLock { state in
            defer {
                state.body = Data()
                state.answered = nil
            }
            return (state.answered, state.body)
        }
        guard let error else {
            answered?(body, response, nil)
            return
        }
        answered?(nil, response, Exchange.transferError(error, head: response, received: body.count))
    }

    /// Forgets the body so far, for a task that sends its request again (answering a challenge with a credential).
    func discardBody() {
        state.withLock { state in
            state.body = Data()
            state.knownLength = nil
        }
    }

    /// Ends the call with ``FetchError/responseTooLarge(limit:request:)`` at once, before the task can complete;
    /// the task is cancelled from another queue, since this runs in a delegate call.
    func endTooLarge() {
        end(with: .responseTooLarge(limit: limit, request: request), cancellingTaskLater: true)
    }

    /// Registers the call and resumes `task`; `report` delivers the error of a call that Fetch ends itself
    /// (cancelled or timed out). A call that ended before it started cancels `task` and reports at once.
    func start(_ task: URLSessionTask, report: @escaping @Sendable (FetchError) -> Void) {
        // Registered before it can finish or be redirected, so that the session finds it.
        registry.insert(self, for: task)
        let endedEarly = state.withLock { state -> (error: FetchError, timer: (any DispatchSourceTimer)?)? in
            switch state.phase {
            case .created:
                state.phase = .running(task, report: report)
                state.measured.begin()
                return nil
            case .endedEarly(let error):
                state.phase = .finished
                defer { state.forgetAnswer() }
                return (error, state.timer)
            case .running, .finished:
                // `start` is called once, by the session, so this cannot happen; report nothing twice.
                return nil
            }
        }
        guard let endedEarly else {
            task.resume()
            return
        }
        endedEarly.timer?.cancel()
        registry.remove(task)
        task.cancel()
        report(endedEarly.error)
    }

    /// Ends the call with ``FetchError/timedOut(request:seconds:)`` after `seconds`, unless it has finished by then.
    func endWithTimeout(after seconds: TimeInterval) {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + seconds)
        // The handler keeps the call alive until the timer fires or is cancelled, which every ending does.
        source.setEventHandler { [self] in
            end(with: .timedOut(request: request, seconds: seconds))
        }
        state.withLock { $0.timer = source }
        source.resume()
    }

    /// Ends the call because its answer arrived; returns `nil` when a cancel or the timeout ended it first, and
    /// otherwise how to report the answer. The caller releases the ending once it has reported.
    func finish() -> Ending? {
        state.withLock { state -> Ending? in
            guard case .running(let task, _) = state.phase else {
                return nil
            }
            state.phase = .finished
            defer { state.forgetAnswer() }
            return Ending(
                redirectRefusal: state.redirects.refusal,
                metrics: state.collected.map { collected in
                    var collected = collected
                    collected.redirects = state.measured.redirects
                    return collected
                } ?? state.measured.metrics(isComplete: true), task: task, timer: state.timer,
                registry: registry)
        }
    }

    func cancel() {
        end(with: .cancelled(request: request))
    }

    private func end(with error: FetchError, cancellingTaskLater: Bool = false) {
        typealias Ended = (
            task: URLSessionTask, report: @Sendable (FetchError) -> Void, timer: (any DispatchSourceTimer)?
        )
        let ended = state.withLock { state -> Ended? in
            switch state.phase {
            case .created:
                state.phase = .endedEarly(error)
                return nil
            case .running(let task, let report):
                state.phase = .finished
                defer { state.forgetAnswer() }
                return (task, report, state.timer)
            case .endedEarly, .finished:
                return nil
            }
        }
        guard let ended else {
            return
        }
        ended.timer?.cancel()
        registry.remove(ended.task)
        guard !cancellingTaskLater else {
            // In a delegate call: on swift-corelibs-foundation it runs on the queue that `cancel()` synchronises
            // with, and where no middleware may run.
            let report = ended.report
            Pipeline.parsingQueue.async { report(error) }
            let task = ended.task
            DispatchQueue.global(qos: .utility).async { task.cancel() }
            return
        }
        // The caller hears first: on swift-corelibs-foundation `cancel()` waits for the session's queue, which a
        // server can keep busy (a head that never ends), and the call is over for Fetch either way.
        ended.report(error)
        let task = ended.task
        DispatchQueue.global(qos: .utility).async { task.cancel() }
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
}

/// The calls a ``Session`` has in flight, by task: for ``Session/cancelAllTasks()``, and to find a task's call when
/// it is redirected.
final class CallRegistry: Sendable {
    private let calls = Locked([ObjectIdentifier: TaskCall]())

    func insert(_ call: TaskCall, for task: URLSessionTask) {
        calls.withLock { $0[ObjectIdentifier(task)] = call }
    }

    func remove(_ task: URLSessionTask) {
        calls.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    func call(for task: URLSessionTask) -> TaskCall? {
        calls.withLock { $0[ObjectIdentifier(task)] }
    }

    func cancelAll() {
        let inFlight = calls.withLock { Array($0.values) }
        for call in inFlight {
            call.cancel()
        }
    }
}

/// The delegate of every task a ``Session`` starts: it keeps the session's calls in flight, and applies its
/// ``RedirectPolicy`` through each task's call.
///
/// A task delegate rather than a session delegate, so that the policy holds on any `URLSession`, `.shared`
/// included; one per session rather than one per call, because only the rare redirect needs it.
final class TaskDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// A caller's `URLSession` and its delegate, which decides the challenges of the tasks that Fetch sends through a
    /// `URLSession` of its own in that one's place (on Linux: see ``URLSessionTransport/init(session:redirectPolicy:maximumResponseSize:)``).
    struct CallersDelegate: Sendable {
        let session: URLSession
        let delegate: any URLSessionTaskDelegate
    }

    let calls = CallRegistry()
    let redirectPolicy: RedirectPolicy
    /// Who decides challenges, when not the `URLSession`'s own delegate.
    let challenges: CallersDelegate?

    init(redirectPolicy: RedirectPolicy, challenges: CallersDelegate? = nil) {
        self.redirectPolicy = redirectPolicy
        self.challenges = challenges
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // A task without a call has been cancelled or has timed out: it goes no further.
        completionHandler(calls.call(for: task)?.redirect(after: response, to: request, policy: redirectPolicy))
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // A streamed body sent again (after a 307 or 308, or a challenge): a new stream over the same file.
        completionHandler(calls.call(for: task).flatMap { Exchange.newBodyStream(for: $0.request) })
    }

    // The session's own delegate (a session Fetch made) also collects each body, stopping it at the size limit.

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let call = calls.call(for: dataTask) else {
            completionHandler(.allow)
            return
        }
        guard call.accepts(expectedLength: response.expectedContentLength) else {
            call.endTooLarge()
            completionHandler(.cancel)
            return
        }
        call.receive(head: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let call = calls.call(for: dataTask) else {
            // Fetch has ended the call (its size limit, its timeout, a cancel), and queued the task's cancel.
            stopReading(dataTask, of: session)
            return
        }
        guard call.receive(data) == .tooLarge else {
            return
        }
        call.endTooLarge()
        stopReading(dataTask, of: session)
    }

    /// Has swift-corelibs-foundation read no more of the response of `task`, whose call has ended, while its cancel
    /// is on the way (see ``CorelibsReception``): only when this delegate call runs inline, in libcurl's callback.
    private func stopReading(_ task: URLSessionDataTask, of session: URLSession) {
        #if os(Linux)
            if session.delegateQueue is InlineDelegateQueue {
                CorelibsReception.pause(task)
            }
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        calls.call(for: task)?.complete(response: task.response, error: error)
    }

    #if !canImport(FoundationNetworking) || FETCH_APPLE_BRANCHES
        /// Keeps what the platform measured of the task, which arrives before it completes (Apple platforms;
        /// swift-corelibs-foundation never calls it).
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics
        ) {
            calls.call(for: task)?.collect(AttemptMetrics(collected: metrics))
        }
    #endif

    #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
        /// Answers a `401` whose `WWW-Authenticate` swift-corelibs-foundation could read, which it raises as a
        /// challenge once the whole `401` has arrived.
        ///
        /// With no credential to try, corelibs up to 6.3.1 leaves the task suspended for good on
        /// `.performDefaultHandling` (swift-corelibs-foundation issue 5456) and cancels it on the other
        /// dispositions, so the `401` would never reach the caller. Fetch answers the call with the `401` itself, as
        /// Apple platforms and later corelibs do, then cancels the task, which is over for Fetch. A credential of
        /// the configuration's `urlCredentialStorage` is still tried first, and a session delegate of the app's
        /// still decides, on its session's delegate queue and told its session (the task is one of Fetch's own).
        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let call = calls.call(for: task)
            let proposed = challenge.proposedCredential
            let failureResponse = challenge.failureResponse
            let decided: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void = {
                disposition, credential in
                let triesNothing =
                    (disposition == .performDefaultHandling && proposed == nil) || disposition == .rejectProtectionSpace
                guard triesNothing, let call, let failureResponse else {
                    // The request goes again, with a credential: its answer's body is the one to keep.
                    call?.discardBody()
                    completionHandler(disposition, credential)
                    return
                }
                call.complete(response: failureResponse, error: nil)
                // The disposition cancels the task, which on corelibs waits for the queue this may run on.
                Pipeline.parsingQueue.async { completionHandler(.cancelAuthenticationChallenge, nil) }
            }
            guard let challenges else {
                decided(.performDefaultHandling, nil)
                return
            }
            // Not on corelibs' own queue, where this runs: the app's delegate may take its time.
            challenges.session.delegateQueue.addOperation {
                challenges.delegate.urlSession(
                    challenges.session, task: task, didReceive: challenge, completionHandler: decided)
            }
        }
    #endif
}
