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
/// A middleware of the app's own reports its events to the same observers through ``CallContext/report(_:)``:
///
/// ```swift
/// context.report(FetchEvent(FetchEvent.Name("myapp.signed"), request: request, reason: "key 7"))
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
    }

    /// What happened.
    public let name: Name
    /// The request the event is about.
    public let request: any Request
    /// The attempt the event is about, counting from 1, when it is about one.
    public private(set) var attempt: Int?
    /// The wait before what the event announces, in seconds.
    public private(set) var delay: TimeInterval?
    /// Why, in words: the status or error that makes a retry, or what the app's own event says.
    public private(set) var reason: String?
    /// The status of the response.
    public private(set) var status: Int?
    /// The number of bytes of the response's body.
    public private(set) var bytes: Int?
    /// How long the call took until the event, in seconds.
    public private(set) var duration: TimeInterval?
    /// The error the call failed with.
    public private(set) var error: (any Error)?

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
        attempt = nil
        delay = nil
        reason = nil
        status = nil
        bytes = nil
        duration = nil
        error = nil
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
