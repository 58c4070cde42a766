import Foundation

/// Something that happened to a call, for logs, metrics and tests: see ``Middleware/observe(_:)``.
///
/// An event has a ``name`` and the request it is about; what else it carries depends on the name, and what it does
/// not carry is `nil`. `FetchEvent` is a struct, not an enum, so that a later release can add events and fields
/// without breaking an app's code: test the name, with a `default` in a `switch`.
///
/// ```swift
/// let api = session.with(
///     .observe { event in
///         if event.name == .finished, let duration = event.duration {
///             metrics.record(duration, status: event.status)
///         }
///     })
/// ```
///
/// A middleware of the app's own reports its events to the same observers through ``CallContext/report(_:)``, with a
/// name of its own or one of Fetch's, and the fields that say what happened:
///
/// ```swift
/// context.report(FetchEvent(FetchEvent.Name("myapp.signed"), request: request, reason: "key 7"))
///
/// var hit = FetchEvent(.cacheHit, request: request)
/// hit.status = 200
/// context.report(hit)
/// ```
public struct FetchEvent: Sendable {
    /// What an event says happened. Fetch's own are its static members; an app names its own with ``init(_:)``,
    /// prefixed so that they cannot meet a later one of Fetch's.
    public struct Name: Hashable, Sendable, CustomStringConvertible {
        /// The name as text: `started`, `myapp.signed`.
        public let description: String

        /// A name of the app's own, for events its middleware reports.
        public init(_ name: String) {
            description = name
        }

        /// A request was handed to the performer.
        public static let started = Name("started")
        /// A request will be tried again: ``attempt``, after ``delay``, because of ``reason``.
        public static let retrying = Name("retrying")
        /// The server answered: ``status``, ``bytes`` of body, ``duration`` after the request started.
        public static let finished = Name("finished")
        /// The request failed without an answer, or was cancelled: ``error``, ``duration`` after it started.
        public static let failed = Name("failed")

        /// The transport started sending an attempt of the call: ``attempt``, and the ``trace`` it carries.
        public static let attemptStarted = Name("attemptStarted")
        /// An attempt ended: its ``status``, ``bytes`` and ``metrics``, or the ``error`` that left it without an
        /// answer; ``duration`` after it started.
        public static let attemptFinished = Name("attemptFinished")
        /// The body of a stream (or of a download's attempt) ended for its reader, after the call's `finished`:
        /// read to its end, or ended by ``error`` (a failure, or ``FetchError/cancelled(request:)`` when the reader
        /// stopped). ``bytes`` is what the reader got; ``metrics`` and ``duration`` are the attempt's to its last
        /// byte, when the transport finished it.
        public static let streamEnded = Name("streamEnded")
        /// The transport followed a ``redirect``.
        public static let redirected = Name("redirected")
        /// The transport did not follow a ``redirect``, because of ``reason``: the redirect is the answer.
        public static let redirectRefused = Name("redirectRefused")

        /// A cache answered with a fresh stored response (``status``, ``bytes``), without a request.
        public static let cacheHit = Name("cacheHit")
        /// A cache had no response it could use, so the request goes on.
        public static let cacheMiss = Name("cacheMiss")
        /// A cache answered with a stale stored response, because of ``reason``: the network failed, or
        /// `stale-while-revalidate` or `stale-if-error` allowed it.
        public static let cacheStaleServed = Name("cacheStaleServed")
        /// The server confirmed a stored response with `304 Not Modified`, which answers the call.
        public static let cacheRevalidated = Name("cacheRevalidated")
        /// A cache stored the response (``status``, ``bytes``).
        public static let cacheStored = Name("cacheStored")
        /// A cache let the call pass without looking, or did not store its response, because of ``reason``.
        public static let cacheBypassed = Name("cacheBypassed")

        /// A credential was refreshed after the answer to ``initiator``; the call goes on with the new one.
        public static let credentialRefreshed = Name("credentialRefreshed")
        /// The call joined the same request already in flight for ``initiator``, and shares its answer.
        public static let joined = Name("joined")

        /// A stream, event source or WebSocket lost its connection and opens a new one: ``attempt`` after ``delay``,
        /// because of ``error``; an event source resumes after ``lastEventID``.
        public static let reconnecting = Name("reconnecting")
        /// A WebSocket opened: ``attempt`` 1 for the first connection, then each reopening.
        public static let webSocketOpened = Name("webSocketOpened")
        /// A WebSocket closed with ``closeCode`` and ``reason``, started by the server when ``closedByServer``.
        public static let webSocketClosed = Name("webSocketClosed")
        /// A WebSocket's connection was lost without a closing handshake (1006): ``error`` says how.
        public static let webSocketDropped = Name("webSocketDropped")
        /// A download or upload goes on from byte ``offset`` instead of starting again.
        public static let transferResumed = Name("transferResumed")
    }

    /// What happened.
    public let name: Name
    /// The request the event is about.
    public let request: any Request
    /// The attempt the event is about, counting from 1, when it is about one.
    public var attempt: Int?

    /// The wait before what the event announces, in seconds.
    public var delay: TimeInterval? {
        get { details?.delay }
        set { if newValue != nil || details != nil { withDetails { $0.delay = newValue } } }
    }

    /// Why, in words: the status or error that makes a retry, or what the app's own event says.
    public var reason: String? {
        get { details?.reason }
        set { if newValue != nil || details != nil { withDetails { $0.reason = newValue } } }
    }

    /// The status of the response.
    public var status: Int?

    /// The number of bytes of the response's body.
    public var bytes: Int?

    /// How long the call, or the attempt, took until the event, in seconds.
    public var duration: TimeInterval?

    /// The error the call, or the attempt, failed with.
    public var error: (any Error)? {
        get { details?.error }
        set { if newValue != nil || details != nil { withDetails { $0.error = newValue } } }
    }

    /// What the attempt measured on the network.
    public var metrics: AttemptMetrics? {
        get { measured?.metrics }
        set { measured = newValue.map(Measured.init) }
    }

    /// The redirect followed or refused.
    public var redirect: AttemptMetrics.Redirect? {
        get { details?.redirect }
        set { if newValue != nil || details != nil { withDetails { $0.redirect = newValue } } }
    }

    /// The call that started what the event reports: whose answer made a credential refresh, or which call in
    /// flight this one joined.
    public var initiator: (any Request)? {
        get { details?.initiator }
        set { if newValue != nil || details != nil { withDetails { $0.initiator = newValue } } }
    }

    /// The id of the last event an event source received, which its reconnection sends as `Last-Event-ID`.
    public var lastEventID: String? {
        get { details?.lastEventID }
        set { if newValue != nil || details != nil { withDetails { $0.lastEventID = newValue } } }
    }

    /// The code a WebSocket closed with; `nil` when the closing frame carried none.
    public var closeCode: WebSocket.CloseCode? {
        get { details?.closeCode }
        set { if newValue != nil || details != nil { withDetails { $0.closeCode = newValue } } }
    }

    /// Whether the server, not the app, started closing the WebSocket.
    public var closedByServer: Bool? {
        get { details?.closedByServer }
        set { if newValue != nil || details != nil { withDetails { $0.closedByServer = newValue } } }
    }

    /// The byte a resumed transfer goes on from.
    public var offset: Int64? {
        get { details?.offset }
        set { if newValue != nil || details != nil { withDetails { $0.offset = newValue } } }
    }

    /// The trace the call belongs to, when the call is traced (see ``Middleware/traceContext(_:)``): an attempt's
    /// events carry the attempt's span, the others the span the call continues.
    public var trace: TraceContext?

    /// The metrics, shared with the response they came from.
    private var measured: Measured?

    /// The fields that most events lack, boxed: an event is copied from middleware to observer, so a copy costs a
    /// retain instead of every field's (`nil` while none is set). The fields of the events every call reports
    /// (attempt, status, bytes, duration, metrics, trace) are stored inline, so that those need no box.
    private var details: Details?

    /// The storage of the optional fields, copied before a write when it is shared.
    private final class Details: @unchecked Sendable {
        var delay: TimeInterval?
        var reason: String?
        var error: (any Error)?
        var redirect: AttemptMetrics.Redirect?
        var initiator: (any Request)?
        var lastEventID: String?
        var closeCode: WebSocket.CloseCode?
        var closedByServer: Bool?
        var offset: Int64?

        init() {}

        init(copying other: Details) {
            delay = other.delay
            reason = other.reason
            error = other.error
            redirect = other.redirect
            initiator = other.initiator
            lastEventID = other.lastEventID
            closeCode = other.closeCode
            closedByServer = other.closedByServer
            offset = other.offset
        }
    }

    /// Runs `change` on storage of this event's own.
    private mutating func withDetails(_ change: (Details) -> Void) {
        if isKnownUniquelyReferenced(&details), let details {  // checked before a binding takes a reference
            change(details)
        } else {
            let own = details.map(Details.init(copying:)) ?? Details()
            change(own)
            details = own
        }
    }

    /// An event of the app's own, for ``CallContext/report(_:)``.
    ///
    /// - Parameters:
    ///   - name: What happened, a name of the app's own.
    ///   - request: The request the event is about.
    ///   - reason: Why, or what happened, in words.
    public init(_ name: Name, request: any Request, reason: String? = nil) {
        self.init(name, request)
        self.reason = reason
    }

    private init(_ name: Name, _ request: any Request) {
        self.name = name
        self.request = request
        details = nil
    }
}

// MARK: - Fetch's events, which a middleware of the app's may report as well

extension FetchEvent {
    /// `request` was handed to the performer.
    public static func started(_ request: any Request) -> FetchEvent {
        FetchEvent(.started, request)
    }

    /// `request` will be tried again: attempt number `attempt` starts after `delay` seconds, because of `reason`.
    public static func retrying(_ request: any Request, attempt: Int, delay: TimeInterval, reason: String)
        -> FetchEvent
    {
        var event = FetchEvent(.retrying, request)
        event.attempt = attempt
        event.delay = delay
        event.reason = reason
        return event
    }

    /// The server answered `request` with `status` and a body of `bytes` bytes, `duration` seconds after it started.
    public static func finished(_ request: any Request, status: Int, bytes: Int, duration: TimeInterval)
        -> FetchEvent
    {
        var event = FetchEvent(.finished, request)
        event.status = status
        event.bytes = bytes
        event.duration = duration
        return event
    }

    /// `request` failed with `error` without an answer (or was cancelled), `duration` seconds after it started.
    public static func failed(_ request: any Request, error: any Error, duration: TimeInterval) -> FetchEvent {
        var event = FetchEvent(.failed, request)
        event.error = error
        event.duration = duration
        return event
    }
}

// MARK: - The events of Fetch's transports and middlewares

extension FetchEvent {
    /// Attempt number `attempt` of `request` goes to the transport.
    package static func attemptStarted(_ request: any Request, attempt: Int) -> FetchEvent {
        var event = FetchEvent(.attemptStarted, request)
        event.attempt = attempt
        return event
    }

    /// Attempt number `attempt` of `request` was answered with `response`, `duration` seconds after it started.
    package static func attemptFinished(
        _ request: any Request, attempt: Int, response: Response, duration: TimeInterval
    ) -> FetchEvent {
        var event = FetchEvent(.attemptFinished, request)
        event.attempt = attempt
        event.duration = duration
        event.status = response.status
        event.bytes = response.data?.count
        event.measured = response.measured
        return event
    }

    /// Attempt number `attempt` of `request` failed with `error`, `duration` seconds after it started.
    package static func attemptFinished(
        _ request: any Request, attempt: Int, error: any Error, duration: TimeInterval
    ) -> FetchEvent {
        var event = FetchEvent(.attemptFinished, request)
        event.attempt = attempt
        event.duration = duration
        event.error = error
        return event
    }

    /// The streamed body of attempt number `attempt` of `request`, whose head had `status`, ended for its reader as
    /// `ending` says.
    package static func streamEnded(
        _ request: any Request, attempt: Int?, status: Int, ending: ResponseStream.Ending
    ) -> FetchEvent {
        var event = FetchEvent(.streamEnded, request)
        event.attempt = attempt
        event.status = status
        event.bytes = ending.bytesRead
        event.duration = ending.metrics?.duration
        event.metrics = ending.metrics
        event.error = ending.error
        return event
    }

    /// An event named `name` about `request`, carrying `redirect`, and `reason` when it was refused.
    package static func redirect(
        _ name: Name, _ request: any Request, _ redirect: AttemptMetrics.Redirect, reason: String? = nil
    ) -> FetchEvent {
        var event = FetchEvent(name, request)
        event.redirect = redirect
        event.reason = reason
        return event
    }

    /// A cache's event named `name` about `request`: the `response` it used or stored, and why.
    package static func cache(
        _ name: Name, _ request: any Request, response: Response? = nil, reason: String? = nil
    ) -> FetchEvent {
        var event = FetchEvent(name, request)
        event.status = response?.status
        event.bytes = response?.data?.count
        event.reason = reason
        return event
    }

    /// An event named `name` about `request`, started by the call of `initiator`: a credential refresh, a join.
    package static func initiated(_ name: Name, _ request: any Request, by initiator: any Request) -> FetchEvent {
        var event = FetchEvent(name, request)
        event.initiator = initiator
        return event
    }

    /// `request`'s stream or WebSocket reconnects: attempt number `attempt` after `delay` seconds, because of
    /// `error`, resuming after `lastEventID` for an event source.
    package static func reconnecting(
        _ request: any Request, attempt: Int, delay: TimeInterval, error: (any Error)?, lastEventID: String? = nil
    ) -> FetchEvent {
        var event = FetchEvent(.reconnecting, request)
        event.attempt = attempt
        event.delay = delay
        event.error = error
        event.lastEventID = lastEventID
        return event
    }

    /// `request`'s WebSocket opened its connection number `attempt`: 1 for the first, then one more per reopening.
    package static func webSocketOpened(_ request: any Request, attempt: Int) -> FetchEvent {
        var event = FetchEvent(.webSocketOpened, request)
        event.attempt = attempt
        return event
    }

    /// `request`'s WebSocket closed with `code` (`nil` when the close frame carried none) and `reason`, started by
    /// the server when `byServer`.
    package static func webSocketClosed(
        _ request: any Request, code: WebSocket.CloseCode?, reason: String, byServer: Bool
    ) -> FetchEvent {
        var event = FetchEvent(.webSocketClosed, request)
        event.closeCode = code
        event.reason = reason
        event.closedByServer = byServer
        return event
    }

    /// `request`'s WebSocket lost its connection without a closing handshake, as `error` says.
    package static func webSocketDropped(_ request: any Request, error: any Error) -> FetchEvent {
        var event = FetchEvent(.webSocketDropped, request)
        event.error = error
        return event
    }

    /// `request`'s transfer goes on from byte `offset`.
    package static func transferResumed(_ request: any Request, offset: Int64) -> FetchEvent {
        var event = FetchEvent(.transferResumed, request)
        event.offset = offset
        return event
    }
}

// MARK: - CustomStringConvertible

extension FetchEvent: CustomStringConvertible {
    /// One line for a log: `GET http://host/users/1 → 200 OK, 312 bytes in 4.1 ms`.
    public var description: String {
        let target = "\(request.method) \(request.url.absoluteString)"
        switch name {
        case .started:
            return "\(target) started"
        case .retrying:
            let wait = delay.map { " in \(Self.format(seconds: $0))" } ?? ""
            let number = attempt.map { "attempt \($0)" } ?? "another attempt"
            return "\(target) failed (\(reason ?? "no reason given")); \(number)\(wait)"
        case .finished:
            let line = status.map(HTTPStatus.line) ?? "answered"
            let took = duration.map { " in \(Self.format(seconds: $0))" } ?? ""
            return "\(target) → \(line), \(bytes ?? 0) bytes\(took)"
        case .failed:
            let after = duration.map { " after \(Self.format(seconds: $0))" } ?? ""
            return "\(target) failed\(after): \(error.map(ErrorText.describe) ?? "no error given")"
        default:
            return "\(target): \(name)" + (reason.map { " (\($0))" } ?? "")
        }
    }

    private static func format(seconds: Double) -> String {
        seconds < 1
            ? String(format: "%.1f ms", seconds * 1000)
            : String(format: "%.2f s", seconds)
    }
}

extension Duration {
    /// This duration in seconds, as a `TimeInterval`.
    package var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
