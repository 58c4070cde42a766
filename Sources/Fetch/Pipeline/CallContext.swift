/// A call going through a ``Pipeline``, as one middleware sees it: whether it has been cancelled, what to stop
/// when it is, and the events reported about the call.
///
/// The caller's call has a context, which is also the handle the caller cancels it with; each use of ``Next`` makes
/// a context of its own inside it, which ``Next/callAsFunction(_:completion:)`` returns. Cancelling a context
/// cancels those inside it. Events belong to the whole call: every context of a call reports to the same observers.
///
/// `@unchecked Sendable`: all mutable state is in `state`, behind its lock.
public final class CallContext: CancellableCall, @unchecked Sendable {
    /// How a call of the pipeline is answered.
    typealias Completion = @Sendable (Result<Response, any Error>) -> Void

    private struct State {
        var isEnded = false
        var isCancelled = false
        /// Who hears how the call ends: with its answer (``finish(with:)``) or with
        /// ``FetchError/cancelled(request:)`` (``cancel()``); set when the call starts.
        var completion: Completion?
        /// What was started inside this context: the transport's handle, or the contexts `next` made. Almost always
        /// one, kept without a list.
        var firstInFlight: (any CancellableCall)?
        var moreInFlight: [any CancellableCall] = []
        var cancelActions: [@Sendable () -> Void] = []
        /// The streamed bodies and WebSocket connections the transport answered the call with, kept by the
        /// caller's context: a middleware that answers with a `Response` it made drops them.
        var delivered: [Response] = []
        /// The caller's context's observers, made when first asked for (a bare session's call never asks).
        var observers: EventObservers?
    }

    /// The request the caller made, before any middleware changed it.
    public let request: any Request

    private let state: InlineLocked<State>
    /// The caller's context; `nil` for the caller's context itself.
    private let root: CallContext?

    /// The observers this context was given: the caller's context's for a context inside it, or those a stream or
    /// WebSocket that reconnects hands to each later call.
    private let givenObservers: EventObservers?

    /// Who hears the events of the call: the caller's context's, shared by every context inside it, and by the
    /// later calls of a stream or WebSocket that reconnects.
    package var observers: EventObservers {
        if let givenObservers {
            return givenObservers
        }
        return state.withLock { state in
            if let made = state.observers {
                return made
            }
            let made = EventObservers()
            state.observers = made
            return made
        }
    }

    /// How many unread bytes of a streamed body may wait in memory; `nil` when the body is read whole.
    let streamBufferLimit: Int?

    /// The largest message the WebSocket this call opens accepts; `nil` when the call is not a WebSocket's opening
    /// handshake.
    let webSocketMessageLimit: Int?

    /// Whether the WebSocket this call opens offers compression.
    let webSocketCompression: WebSocket.Compression

    /// A context for the caller's call; `streamBufferLimit` is set for a stream, `webSocketMessageLimit` for a
    /// WebSocket's opening handshake.
    ///
    /// A stream or WebSocket that reconnects passes the `observers` of its first call to each later one, so that an
    /// observer hears the whole connection's life, the waits between calls included; without them, the context
    /// makes its own when first asked.
    init(
        request: any Request, streamBufferLimit: Int? = nil, webSocketMessageLimit: Int? = nil,
        webSocketCompression: WebSocket.Compression = .deflate, observers: EventObservers? = nil
    ) {
        self.request = request
        self.root = nil
        self.state = InlineLocked(State())
        self.givenObservers = observers
        self.streamBufferLimit = streamBufferLimit
        self.webSocketMessageLimit = webSocketMessageLimit
        self.webSocketCompression = webSocketCompression
    }

    /// A context inside `outer`'s call, reporting events to the same observers, started with `completion`.
    init(inside outer: CallContext, completion: @escaping Completion) {
        self.request = outer.request
        self.root = outer.root ?? outer
        self.state = InlineLocked(State(completion: completion))
        self.givenObservers = outer.observers
        self.streamBufferLimit = outer.streamBufferLimit
        self.webSocketMessageLimit = outer.webSocketMessageLimit
        self.webSocketCompression = outer.webSocketCompression
    }

    /// Keeps `response`, the transport's answer, when it carries a streamed body or a WebSocket connection.
    func noteDelivered(_ response: Response) {
        guard response.streamedBody != nil || response.webSocketChannel != nil else {
            return
        }
        if let root {
            root.noteDelivered(response)
            return
        }
        state.withLock { $0.delivered.append(response) }
    }

    /// The failure of a stream or WebSocket call that `response` answers without the body or connection the
    /// transport delivered (a middleware made a new `Response`), after closing what it dropped; `nil` when
    /// `response` carries its own, or the transport delivered none (a middleware answered on its own).
    func droppedDelivery(answering response: Response) -> FetchError? {
        // Taken in every case, so that the call keeps no earlier attempt's stream once it has its answer.
        let delivered = state.withLock { state -> [Response] in
            defer { state.delivered = [] }
            return state.delivered
        }
        guard !delivered.isEmpty, response.streamedBody == nil, response.webSocketChannel == nil else {
            return nil
        }
        for dropped in delivered {
            dropped.streamedBody?.stream.cancel()
            dropped.webSocketChannel?.close(code: .goingAway, reason: "")
        }
        let what = delivered.contains { $0.webSocketChannel != nil } ? "WebSocket connection" : "streamed body"
        return FetchError.invalidRequest(
            "\(ErrorText.target(request)): a middleware answered with a Response it made, without the \(what) the"
                + " transport delivered (status \(response.status)); it was closed. Edit a copy of the response next"
                + " answered (var response = answer) to keep it")
    }

    /// Whether the caller reads the response's body as it arrives (``RequestPerforming/stream(_:errorParser:maximumBufferSize:)``).
    ///
    /// The response a middleware sees is then the head: its ``Response/data`` is `nil` for a 2xx, whose body the
    /// caller reads. A middleware that stores or shares bodies, such as a cache or deduplication, passes a stream
    /// on untouched. Retrying or refreshing on the head is safe: nothing has reached the caller yet.
    ///
    /// A WebSocket's opening handshake is a streamed call too: its response is the `101 Switching Protocols` head,
    /// and what follows is the connection.
    public var isStreaming: Bool {
        streamBufferLimit != nil || webSocketMessageLimit != nil
    }

    /// Whether the call is a WebSocket's opening handshake
    /// (``RequestPerforming/webSocket(_:errorParser:maximumMessageSize:reconnectPolicy:scheduler:)``).
    package var isWebSocket: Bool {
        webSocketMessageLimit != nil
    }

    /// Whether the call was cancelled (the caller's, or this use of `next`). A middleware that waits (a retry's backoff, a refresh) checks it before
    /// going on; `next` answers a cancelled call with ``FetchError/cancelled(request:)`` without sending anything.
    public var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }

    /// Runs `action` if the call is cancelled: to stop a timer the middleware started, for example. Runs it at once
    /// when the call has already been cancelled; never runs it once the call has finished otherwise.
    ///
    /// - Parameter action: What to do on cancellation. It must not block.
    public func onCancel(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard !state.isEnded else {
                return state.isCancelled
            }
            state.cancelActions.append(action)
            return false
        }
        if runNow {
            action()
        }
    }

    /// Reports `event` to every observer of this call, such as the `observe`
    /// middleware: a retry reports each wait this way.
    ///
    /// - Parameter event: What happened.
    public func report(_ event: FetchEvent) {
        observers.report(event)
    }

    /// Calls `handler` with every event that a middleware of this call reports from now on.
    ///
    /// - Parameters:
    ///   - observer: Who observes. Observing again as the same object changes nothing, so a middleware that runs
    ///     once per attempt hears each event once.
    ///   - handler: Called with each event, on the thread that reported it.
    package func observeEvents(as observer: AnyObject, _ handler: @escaping @Sendable (FetchEvent) -> Void) {
        observers.add(observer, handler)
    }

    /// Cancels the call: stops what it has in flight, runs the ``onCancel(_:)`` actions, and completes the caller
    /// with ``FetchError/cancelled(request:)``, unless the call has already finished.
    public func cancel() {
        let ended = state.withLock { state -> (Completion?, [any CancellableCall], [@Sendable () -> Void])? in
            guard !state.isEnded else {
                return nil
            }
            state.isEnded = true
            state.isCancelled = true
            var inFlight = state.moreInFlight
            if let first = state.firstInFlight {
                inFlight.insert(first, at: 0)
            }
            defer {
                state.firstInFlight = nil
                state.moreInFlight = []
                state.cancelActions = []
                state.completion = nil
            }
            return (state.completion, inFlight, state.cancelActions)
        }
        guard let (completion, inFlight, actions) = ended else {
            return
        }
        for step in inFlight {
            step.cancel()
        }
        for action in actions {
            action()
        }
        completion?(.failure(FetchError.cancelled(request: request)))
    }

    // MARK: - The pipeline's side

    /// Starts the call, which ends by calling `completion`; returns `false` when it was cancelled before it
    /// started, and `completion` must be called now.
    func begin(_ completion: @escaping Completion) -> Bool {
        state.withLock { state in
            guard !state.isEnded else {
                return false
            }
            state.completion = completion
            return true
        }
    }

    /// Ends the call with `answer`, unless it has ended already (cancelled, or answered before).
    func finish(with answer: Result<Response, any Error>) {
        let completion = state.withLock { state -> Completion? in
            guard !state.isEnded else {
                return nil
            }
            state.isEnded = true
            state.firstInFlight = nil
            state.moreInFlight = []
            state.cancelActions = []
            defer { state.completion = nil }
            return state.completion
        }
        completion?(answer)
    }

    /// Keeps `step` to cancel with the call; cancels it at once when the call has already been cancelled, and
    /// then returns `false`.
    @discardableResult
    func track(_ step: any CancellableCall) -> Bool {
        let cancelNow = state.withLock { state -> Bool in
            guard !state.isEnded else {
                return state.isCancelled
            }
            if state.firstInFlight == nil {
                state.firstInFlight = step
            } else {
                state.moreInFlight.append(step)
            }
            return false
        }
        if cancelNow {
            step.cancel()
        }
        return !cancelNow
    }
}

/// The observers of a call's events, which every context of the call reports to; a stream or WebSocket that
/// reconnects keeps its first call's and hands them to each later call, and reports its own waits to them.
///
/// `@unchecked Sendable`: all mutable state is in `state`, behind its lock.
package final class EventObservers: @unchecked Sendable {
    private struct State {
        /// The observers, in the order they were added.
        var handlers = Handlers()
        /// The attempts that reached the transport so far.
        var attempts = 0
        /// What was announced before anyone observed, for each observer added later.
        var announced: [FetchEvent] = []
        /// The trace the call continues, once a ``TraceContextMiddleware`` has set it.
        var trace: TraceContext?
    }

    private let state = InlineLocked(State())

    package init() {}

    /// Whether anyone observes: when nobody does, the pipeline makes no events.
    package var isEmpty: Bool {
        state.withLock { $0.handlers.isEmpty }
    }

    /// Calls `handler` with every event reported from now on; adding the same `observer` again changes nothing.
    package func add(_ observer: AnyObject, _ handler: @escaping @Sendable (FetchEvent) -> Void) {
        let id = ObjectIdentifier(observer)
        let announced = state.withLock { state -> [FetchEvent] in
            guard !state.handlers.contains(id) else {
                return []
            }
            state.handlers.append(id, handler)
            return state.announced
        }
        for event in announced {
            handler(event)
        }
    }

    /// Reports `event` to every observer; when no one observes yet, keeps it for each observer added later, which
    /// hears it first: for what happens before a call has reached its observers, such as a download that resumes
    /// on its first attempt.
    package func announce(_ event: consuming FetchEvent) {
        var event = event
        let handlers = state.withLock { state in
            if let trace = state.trace, event.trace == nil {
                event.trace = trace
            }
            if state.handlers.isEmpty {
                state.announced.append(event)
            }
            return state.handlers
        }
        handlers.call(with: event)
    }

    /// Reports `event` to every observer, on the calling thread, with `attemptTrace` or else the call's ``trace``,
    /// unless it carries one.
    ///
    /// `consuming`, as every event path here is: an event is a large value, and each copy retains its every field.
    package func report(_ event: consuming FetchEvent, trace attemptTrace: TraceContext? = nil) {
        var event = event
        if event.trace == nil, let attemptTrace {
            event.trace = attemptTrace
        }
        let handlers = state.withLock { state in
            if event.trace == nil, let trace = state.trace {
                event.trace = trace
            }
            return state.handlers
        }
        handlers.call(with: event)
    }

    /// `event` with the call's ``trace``, unless it carries one: for an event reported to one observer only.
    package func traced(_ event: consuming FetchEvent) -> FetchEvent {
        guard let trace else {
            return event
        }
        var event = event
        if event.trace == nil {
            event.trace = trace
        }
        return event
    }

    /// The trace the call continues (and, for a stream or WebSocket that reconnects, every later call of it), set
    /// by ``TraceContextMiddleware``; `nil` when the call is not traced. Each attempt sends it with a span of its own.
    package var trace: TraceContext? {
        state.withLock { $0.trace }
    }

    /// Sets the call's ``trace`` to `make()`, unless it has one: the first tracing middleware to see the call, or
    /// the first call of a stream that reconnects, decides it.
    package func setTrace(_ make: () -> TraceContext) {
        guard trace == nil else {
            return
        }
        let made = make()
        state.withLock { state in
            if state.trace == nil {
                state.trace = made
            }
        }
    }

    /// The number of the last attempt that reached the transport; `nil` before the first, or when nobody observes.
    package var lastObservedAttempt: Int? {
        state.withLock { $0.attempts > 0 ? $0.attempts : nil }
    }

    /// The number of the attempt now reaching the transport, counting from 1 across the whole call (and across the
    /// reconnections of a stream or WebSocket); `nil` when nobody observes, and then the attempt is not counted.
    package func nextObservedAttempt() -> Int? {
        state.withLock { state in
            guard !state.handlers.isEmpty else {
                return nil
            }
            state.attempts += 1
            return state.attempts
        }
    }
}

/// The handlers of a call's observers, in the order they were added. A call has one or two: the first is kept inline,
/// so that the usual call allocates no list.
private struct Handlers {
    typealias Handler = @Sendable (FetchEvent) -> Void

    private var first: (observer: ObjectIdentifier, handler: Handler)?
    private var others: [(observer: ObjectIdentifier, handler: Handler)] = []

    var isEmpty: Bool {
        first == nil
    }

    func contains(_ observer: ObjectIdentifier) -> Bool {
        first?.observer == observer || others.contains { $0.observer == observer }
    }

    mutating func append(_ observer: ObjectIdentifier, _ handler: @escaping Handler) {
        if first == nil {
            first = (observer, handler)
        } else {
            others.append((observer, handler))
        }
    }

    func call(with event: FetchEvent) {
        first?.handler(event)
        for other in others {
            other.handler(event)
        }
    }
}
