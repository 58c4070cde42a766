import Dispatch
import Foundation

/// Middlewares in front of a ``Transport``, performing calls as one: the shape of every ``RequestPerforming``
/// object in Fetch.
///
/// A ``Session`` is a pipeline with no middlewares over `URLSession`; `session.with(.observe { … }, .retry())` is
/// the same transport behind two middlewares, and `Pipeline(transport, middlewares: [.observe { … }, .retry()])`
/// builds the same stack by hand. Whatever the stack, the pipeline alone:
/// - completes each call exactly once, with ``FetchError/cancelled(request:)`` when it is cancelled first;
/// - parses the final response into the caller's type, off the transport's thread and off the callback queue, so
///   that large responses decode in parallel (over the synchronous doubles, on the calling thread);
/// - calls callback-form completions on ``callbackQueue`` (the innermost session's), and never uses it for the
///   `async` forms;
/// - cancels what a call started through ``Next`` when the call is cancelled, whether by its ``CancellableCall``, by
///   ``Session/cancelAllTasks()`` or by cancelling the awaiting `Task`.
///
/// ```swift
/// let api = session.with(RequestSigner(key: key), .retry())
/// let user: User = try await api.perform(GetUser(id: 1))
/// ```
public struct Pipeline: RequestPerforming {
    /// The middlewares, outermost first: the first sees each request first and each response last.
    package var middlewares: [any Middleware] { stack.middlewares }

    /// Where the responses come from.
    package var transport: any Transport { stack.transport }

    /// The queue on which callback-form completions are called, or `nil` to call them on the thread where the
    /// call finished (before `perform` returns, over a synchronous transport).
    public let callbackQueue: OperationQueue?

    let stack: Stack

    /// Creates a pipeline.
    ///
    /// - Parameters:
    ///   - transport: Where the responses come from.
    ///   - middlewares: The middlewares, outermost first. The default is none.
    ///   - callbackQueue: The queue for callback-form completions, or `nil` to call them directly, parsing on the
    ///     calling thread. The default is `nil`.
    public init(
        _ transport: any Transport,
        middlewares: [any Middleware] = [],
        callbackQueue: OperationQueue? = nil
    ) {
        self.stack = Stack(middlewares: middlewares, transport: transport)
        self.callbackQueue = callbackQueue
    }

    /// The pipeline itself.
    public var pipeline: Pipeline { self }

    /// Cancels every call the transport has in flight, as ``Session/cancelAllTasks()`` does: on a pipeline that
    /// `session.with(…)` built, every call of that session, whichever middlewares it went through. Each completes
    /// with ``FetchError/cancelled(request:)``; a transport of your own is not reached.
    public func cancelAllTasks() {
        (transport as? any CancellingTransport)?.cancelAll()
    }

    /// This pipeline with `outer` (outermost first) outside its middlewares, on the same transport and callback
    /// queue.
    func adding(_ outer: [any Middleware]) -> Pipeline {
        Pipeline(transport, middlewares: outer + middlewares, callbackQueue: callbackQueue)
    }

    /// Sends `request` through the middlewares and the transport, and parses the final response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, on ``callbackQueue`` when there is one, with the parsed value or the
    ///     error.
    /// - Returns: The call, which cancels it.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall {
        let context = CallContext(request: request, observers: stack.observersOfNewCall)
        guard let queue = callbackQueue else {
            stack.start(request, from: 0, context: context) { answer in
                completion(Self.parse(answer, as: T.self, for: request, errorParser: errorParser))
            }
            return context
        }
        stack.start(request, from: 0, context: context) { answer in
            switch answer {
            case .failure:
                let result = Self.parse(answer, as: T.self, for: request, errorParser: errorParser)
                queue.addOperation { completion(result) }
            case .success where DispatchQueue.getSpecific(key: Self.parsingQueueKey) != nil:
                // The transport handed the answer on to the parsing queue already.
                let result = Self.parse(answer, as: T.self, for: request, errorParser: errorParser)
                queue.addOperation { completion(result) }
            case .success:
                Self.parsingQueue.async {
                    let result = Self.parse(answer, as: T.self, for: request, errorParser: errorParser)
                    queue.addOperation { completion(result) }
                }
            }
        }
        return context
    }

    /// Sends `request` through the middlewares and the transport and returns the final response, for the `async`
    /// forms: cancelling the awaiting `Task` cancels the call, or keeps it from being sent when the task is
    /// already cancelled.
    func response(for request: any Request) async throws -> Response {
        let context = CallContext(request: request, observers: stack.observersOfNewCall)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                stack.start(request, from: 0, context: context) { continuation.resume(with: $0) }
            }
        } onCancel: {
            context.cancel()
        }
    }

    /// Sends `request` through the middlewares and the transport, and returns once the response head has arrived,
    /// with its body to read as it arrives.
    ///
    /// The middlewares see the call with ``CallContext/isStreaming`` set, and the head as the response. The body
    /// never passes through them: a retry or a token refresh acts on the head, before anything reaches the caller;
    /// a cache or deduplication passes the call on.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - maximumBufferSize: How many bytes the consumer may fall behind, in memory, before reading from the network
    ///     pauses.
    ///   - observers: Who hears the call's events: new ones, or those of the first call of a stream that
    ///     reconnects.
    /// - Returns: The stream: its ``ResponseStream/response`` head, and its body as chunks.
    /// - Throws: For a status outside 2xx, the error parser's error or ``FetchError/unacceptableStatus(_:)`` with up
    ///   to 64 KiB of the body; a ``FetchError`` naming the request for a transport failure;
    ///   ``FetchError/cancelled(request:)`` when the awaiting task is cancelled.
    package func stream(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        maximumBufferSize: Int,
        observers: EventObservers = EventObservers()
    ) async throws -> ResponseStream {
        let context = CallContext(
            request: request, streamBufferLimit: max(1, maximumBufferSize), observers: observers)
        let answer = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                stack.start(request, from: 0, context: context) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            context.cancel()
        }
        if case .success(let response) = answer, let dropped = context.droppedDelivery(answering: response) {
            throw dropped
        }
        if case .success(let response) = answer, response.isSuccess {
            let head = response.answering(request)
            let stream = response.streamedBody?.stream.with(head: head) ?? ResponseStream(whole: head)
            Self.reportEnd(of: stream, answering: request, status: response.status, to: observers)
            return stream
        }
        if case .success(let response) = answer, let body = response.streamedBody {
            Self.reportEnd(of: body.stream, answering: request, status: response.status, to: observers)
        }
        let error = await Self.readingErrorBodies(of: answer, upTo: Self.streamedErrorBodyLimit)
        switch Self.parse(error, as: StreamHead.self, for: request, errorParser: errorParser) {
        case .success:
            // A status outside 2xx that an error parser did not turn into an error.
            throw FetchError.unacceptableStatus(try error.get().answering(request))
        case .failure(let failure):
            throw failure
        }
    }

    /// The length of an error body a stream reads for its error: 64 KiB.
    package static let streamedErrorBodyLimit = 64 * 1024

    /// Starts a call of `request` through the middlewares and the transport, and hands `completion` the final
    /// response unparsed, or the failure, on the thread where it arrived; `caller` is the request that cancellations
    /// name.
    ///
    /// - Returns: The call, which cancels it.
    package func start(
        _ request: any Request,
        naming caller: any Request,
        observers: EventObservers = EventObservers(),
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        let context = CallContext(request: caller, observers: observers)
        stack.start(request, from: 0, context: context, completion: completion)
        return context
    }

    /// Starts a streamed call through the middlewares and the transport, and hands `completion` the raw answer: a
    /// head of any status with its body in ``Response/streamedBody``, or the failure. A transfer's attempts are
    /// each one such call; `caller` is the request that cancellations name.
    ///
    /// - Returns: The call, which cancels it until the head has arrived; then the body's stream cancels it.
    package func startStream(
        _ request: any Request,
        naming caller: any Request,
        maximumBufferSize: Int,
        observers: EventObservers = EventObservers(),
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        let context = CallContext(
            request: caller, streamBufferLimit: max(1, maximumBufferSize), observers: observers)
        stack.start(request, from: 0, context: context) { answer in
            if case .success(let response) = answer, let dropped = context.droppedDelivery(answering: response) {
                completion(.failure(dropped))
                return
            }
            if case .success(let response) = answer, let body = response.streamedBody {
                Self.reportEnd(of: body.stream, answering: caller, status: response.status, to: observers)
            }
            completion(answer)
        }
        return context
    }

    /// Reports ``FetchEvent/Name/streamEnded`` to `observers` when `stream`'s body ends for its reader, on the
    /// reader's thread; nothing when no one observes.
    private static func reportEnd(
        of stream: ResponseStream, answering request: any Request, status: Int, to observers: EventObservers
    ) {
        guard !observers.isEmpty else {
            return
        }
        let attempt = observers.lastObservedAttempt
        stream.whenEnded { ending in
            observers.report(FetchEvent.streamEnded(request, attempt: attempt, status: status, ending: ending))
        }
    }

    /// `answer` with the streamed body of its response, or of the response in its error, read (up to `limit`
    /// bytes) into the response's ``Response/data``.
    package static func readingErrorBodies(
        of answer: Result<Response, any Error>,
        upTo limit: Int
    ) async -> Result<Response, any Error> {
        func read(_ response: Response) async -> Response {
            guard let body = response.streamedBody else {
                return response
            }
            return response.withBody(await body.stream.collect(upTo: limit))
        }
        switch answer {
        case .success(let response):
            return .success(await read(response))
        case .failure(let error):
            switch error.fetchKind {
            case .unacceptableStatus(let response):
                return .failure(FetchError.unacceptableStatus(await read(response)))
            case .attemptsExhausted(let attempts, let lastError, let request):
                guard case .unacceptableStatus(let response) = lastError.fetchKind else {
                    return answer
                }
                return .failure(
                    FetchError.attemptsExhausted(
                        attempts: attempts, lastError: FetchError.unacceptableStatus(await read(response)),
                        request: request))
            default:
                return answer
            }
        }
    }

    /// What a stream's head parses as: success for a 2xx, otherwise the error `perform` would give.
    private struct StreamHead: Parsable {
        static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<StreamHead, any Error> {
            response.requireSuccess(errorParser: errorParser).map { _ in StreamHead() }
        }
    }

    /// `answer` parsed as `T` for the caller's `request`: the value a cache kept with the response when it has one.
    ///
    /// Every ``FetchError`` is made to name the caller's request (``FetchError/naming(_:)``). A middleware that gives
    /// up on a response says so with ``FetchError/unacceptableStatus(_:)``, alone or as the last error of
    /// ``FetchError/attemptsExhausted(attempts:lastError:request:)``: that response is read as any answer is,
    /// so that a type that accepts any status gets it and the error parser's error reaches the caller.
    static func parse<T: Parsable>(
        _ answer: Result<Response, any Error>,
        as type: T.Type,
        for request: any Request,
        errorParser: (any ErrorParsing)?
    ) -> Result<T, any Error> {
        let error: any Error
        switch answer {
        case .success(let response):
            return response.answering(request).parsed(as: T.self, errorParser: errorParser)
        case .failure(let failure):
            error = failure
        }
        switch error.fetchKind {
        case .unacceptableStatus(let response):
            return response.answering(request).parsed(as: T.self, errorParser: errorParser)
        case .attemptsExhausted(let attempts, let lastError, _):
            if case .unacceptableStatus(let response) = lastError.fetchKind {
                return response.answering(request).parsed(as: T.self, errorParser: errorParser).mapError { error in
                    FetchError.attemptsExhausted(attempts: attempts, lastError: error, request: request)
                }
            }
        default:
            break
        }
        return .failure((error as? FetchError)?.naming(request) ?? error)
    }

    /// Where callback-form calls parse: concurrent, so that several large responses decode at once, up to the
    /// machine's cores.
    ///
    /// A transport whose answers arrive on a thread where no middleware may run hands them on to it (see
    /// `URLSessionTransport`), and the pipeline then parses without another hop.
    package static let parsingQueue: DispatchQueue = {
        let queue = DispatchQueue(label: "Fetch.Pipeline.parsing", attributes: .concurrent)
        queue.setSpecific(key: parsingQueueKey, value: ())
        return queue
    }()

    /// Marks ``parsingQueue``, so that a call already on it parses at once.
    private static let parsingQueueKey = DispatchSpecificKey<Void>()
}

extension Pipeline {
    /// The middlewares and the transport, which run a call from any step inward; a class, so that each ``Next`` a
    /// call makes shares it.
    final class Stack: Sendable {
        let middlewares: [any Middleware]
        let transport: any Transport
        /// Whether a send's or a stream's answer must be handed on to ``Pipeline/parsingQueue`` before the
        /// middlewares see it (see ``RestrictedThreadTransport``).
        private let sendsHandOn: Bool
        private let streamsHandOn: Bool
        /// The `.observe` middlewares at the head of the stack, which the pipeline runs without a step each: an
        /// observer outermost sees the caller's call whole, so it needs no `Next` (nor the context, lock and closures a
        /// step makes) to report the same events in the same order; it takes a third of an observed call's cost.
        private let leadingObservers: [ObservingMiddleware]
        /// The transport's redirect policy, for the events of a redirect it refused (looked up once: a cast to a
        /// protocol costs hundreds of instructions).
        private let redirectPolicy: RedirectPolicy?

        init(middlewares: [any Middleware], transport: any Transport) {
            self.middlewares = middlewares
            self.transport = transport
            let restricted = transport as? any RestrictedThreadTransport
            self.sendsHandOn = !middlewares.isEmpty && restricted?.sendsCompleteOnRestrictedThread == true
            self.streamsHandOn = !middlewares.isEmpty && restricted?.streamsCompleteOnRestrictedThread == true
            self.redirectPolicy = (transport as? any RedirectFollowing)?.redirectPolicy
            var leadingObservers: [ObservingMiddleware] = []
            for middleware in middlewares {
                guard let observer = middleware as? ObservingMiddleware else {
                    break
                }
                leadingObservers.append(observer)
            }
            self.leadingObservers = leadingObservers
        }

        /// The observers of a call that starts here: new ones, made now when a middleware may ask for them; `nil`
        /// for a bare transport, whose calls make none unless asked.
        var observersOfNewCall: EventObservers? {
            middlewares.isEmpty ? nil : EventObservers()
        }

        /// Starts `context`'s call at step `index`, and calls `completion` exactly once: with the answer, or with
        /// ``FetchError/cancelled(request:)`` when the call is cancelled first (at once if it already was).
        func start(
            _ request: any Request,
            from index: Int,
            context: CallContext,
            completion: @escaping CallContext.Completion
        ) {
            var completion = completion
            var index = index
            if index == 0, !leadingObservers.isEmpty, !context.isCancelled {
                // Each observer reports as its `intercept` would, outermost first, without a step of its own.
                for observer in leadingObservers {
                    completion = observer.observing(request, context: context, completion: completion)
                }
                index = leadingObservers.count
            }
            guard context.begin(completion) else {
                completion(.failure(FetchError.cancelled(request: context.request)))
                return
            }
            proceed(request, from: index, context: context)
        }

        /// Runs `context`'s call, which has begun, from step `index`: its answer ends the context.
        func proceed(_ request: any Request, from index: Int, context: CallContext) {
            run(request, from: index, context: context) { answer in context.finish(with: answer) }
        }

        /// `completion`, called on ``Pipeline/parsingQueue``.
        private static func handingOn(
            _ completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> @Sendable (Result<Response, any Error>) -> Void {
            { answer in Pipeline.parsingQueue.async { completion(answer) } }
        }

        /// Runs step `index` (a middleware, or the transport past the last one) for `context`'s call, which has
        /// begun; `completion` is called at most once by `start`'s guard.
        private func run(
            _ request: any Request,
            from index: Int,
            context: CallContext,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            guard index < middlewares.count else {
                // A traced call sends each attempt with a span of its own, whichever middleware made the attempt. Only
                // a middleware traces, so a bare session's call does not look.
                if !middlewares.isEmpty, let attemptTrace = context.observers.trace?.newSpan() {
                    send(
                        TraceContextMiddleware.stamping(request, with: attemptTrace), trace: attemptTrace,
                        context: context, completion: completion)
                } else {
                    send(request, trace: nil, context: context, completion: completion)
                }
                return
            }
            middlewares[index].intercept(
                request,
                context: context,
                next: Next(stack: self, index: index + 1, context: context),
                completion: completion
            )
        }

        /// Hands `request`, an attempt of `context`'s call carrying `trace`, to the transport.
        private func send(
            _ request: any Request,
            trace: TraceContext?,
            context: CallContext,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            let completion = reportingAttempt(of: request, trace: trace, context: context, completion: completion)
            if let messageLimit = context.webSocketMessageLimit {
                openWebSocket(request, maximumMessageSize: messageLimit, context: context, completion: completion)
            } else if let maximumBufferSize = context.streamBufferLimit {
                let completion = streamsHandOn ? Self.handingOn(completion) : completion
                context.track(
                    transport.stream(request, maximumBufferSize: maximumBufferSize) { answer in
                        let answer = answer.map(Response.init(streaming:))
                        if case .success(let response) = answer {
                            context.noteDelivered(response)
                        }
                        completion(answer)
                    })
            } else {
                let completion = sendsHandOn ? Self.handingOn(completion) : completion
                context.track(transport.send(request, completion: completion))
            }
        }

        /// `completion`, reporting the attempt that reaches the transport now to the call's observers: started
        /// now, then the redirects it followed and how it finished. Over a pipeline no one observes, `completion`
        /// itself: a bare session's calls make no events. The events carry the attempt's `trace`.
        private func reportingAttempt(
            of request: any Request,
            trace: TraceContext?,
            context: CallContext,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> @Sendable (Result<Response, any Error>) -> Void {
            // A bare session's call does not even make its observers.
            guard !middlewares.isEmpty else {
                return completion
            }
            let observers = context.observers
            guard let attempt = observers.nextObservedAttempt() else {
                return completion
            }
            let stopwatch = Stopwatch()
            observers.report(FetchEvent.attemptStarted(request, attempt: attempt), trace: trace)
            let policy = redirectPolicy
            return { answer in
                let duration = stopwatch.seconds
                switch answer {
                case .success(let response):
                    if let redirects = response.measured?.metrics.redirects {
                        for hop in redirects {
                            observers.report(FetchEvent.redirect(.redirected, request, hop), trace: trace)
                        }
                    }
                    if let (redirect, reason) = Self.refusedRedirect(answering: request, with: response, policy: policy)
                    {
                        observers.report(
                            FetchEvent.redirect(.redirectRefused, request, redirect, reason: reason), trace: trace)
                    }
                    observers.report(
                        .attemptFinished(request, attempt: attempt, response: response, duration: duration),
                        trace: trace)
                case .failure(let error):
                    if let (redirect, reason) = Self.refusedRedirect(failing: error) {
                        observers.report(
                            FetchEvent.redirect(.redirectRefused, request, redirect, reason: reason), trace: trace)
                    }
                    observers.report(
                        .attemptFinished(request, attempt: attempt, error: error, duration: duration), trace: trace)
                }
                completion(answer)
            }
        }

        /// The redirect the transport did not follow, and why, when `error` is a
        /// ``FetchError/redirectRefused(from:to:reason:request:)`` whose status the transport knew.
        private static func refusedRedirect(failing error: any Error) -> (AttemptMetrics.Redirect, String)? {
            guard let error = error as? FetchError,
                case .redirectRefused(let from, let to, let reason, _) = error.kind,
                let status = error.redirectStatus
            else {
                return nil
            }
            return (AttemptMetrics.Redirect(url: from, status: status, location: to), reason)
        }

        /// The redirect `response` is, and why it was not followed, when the transport answered `request` with a
        /// redirect as it is (a policy that follows none, a streamed body that cannot be sent again).
        private static func refusedRedirect(
            answering request: any Request, with response: Response, policy: RedirectPolicy?
        ) -> (AttemptMetrics.Redirect, String)? {
            switch response.status {
            case 301, 302, 303, 307, 308:
                break
            default:
                return nil
            }
            let from = response.url ?? request.url
            guard let location = response.headers["Location"],
                let target = URL(string: location, relativeTo: from)?.absoluteURL
            else {
                return nil
            }
            let reason =
                policy?.maximumRedirects == 0
                ? "the redirect policy follows none (maximumRedirects is 0)"
                : "the transport did not follow it"
            return (AttemptMetrics.Redirect(url: from, status: response.status, location: target), reason)
        }

        /// The transport step of a WebSocket's opening handshake.
        private func openWebSocket(
            _ request: any Request,
            maximumMessageSize: Int,
            context: CallContext,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            guard let opener = transport as? any WebSocketTransport else {
                completion(
                    .failure(
                        FetchError.invalidRequest(
                            "\(ErrorText.target(request)): the transport \(type(of: transport)) does not open"
                                + " WebSockets (Fetch's URLSessionTransport and CurlTransport do)")))
                return
            }
            let completion = streamsHandOn ? Self.handingOn(completion) : completion
            context.track(
                opener.openWebSocket(
                    request, maximumMessageSize: maximumMessageSize, compression: context.webSocketCompression
                ) { answer in
                    if case .success(let response) = answer {
                        context.noteDelivered(response)
                    }
                    completion(answer)
                })
        }
    }
}
