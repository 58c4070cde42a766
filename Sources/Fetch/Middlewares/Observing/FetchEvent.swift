import Foundation

/// Something that happened to a call, for logging and metrics: see ``Middleware/observe(_:)`` and
/// ``Middleware/retry(_:scheduler:)``.
public enum FetchEvent: Sendable {
    /// A request was handed to the performer.
    case started(any Request)

    /// A request will be tried again: attempt number `attempt` starts after `delay` seconds, because of `reason`.
    case retrying(any Request, attempt: Int, delay: TimeInterval, reason: String)

    /// The server answered with `status` and a body of `bytes` bytes, `duration` after the request started.
    case finished(any Request, status: Int, bytes: Int, duration: Duration)

    /// The request failed without an answer (or was cancelled), `duration` after it started.
    case failed(any Request, error: any Error, duration: Duration)

    /// The request the event is about.
    public var request: any Request {
        switch self {
        case .started(let request), .retrying(let request, _, _, _), .finished(let request, _, _, _),
            .failed(let request, _, _):
            request
        }
    }
}

// MARK: - CustomStringConvertible

extension FetchEvent: CustomStringConvertible {
    /// One line for a log: `GET http://host/users/1 → 200 OK, 312 bytes in 4.1 ms`.
    public var description: String {
        let target = "\(request.method) \(request.url.absoluteString)"
        switch self {
        case .started:
            return "\(target) started"
        case .retrying(_, let attempt, let delay, let reason):
            return "\(target) failed (\(reason)); attempt \(attempt) in \(Self.format(seconds: delay))"
        case .finished(_, let status, let bytes, let duration):
            return "\(target) → \(HTTPStatus.line(status)), \(bytes) bytes in \(Self.format(duration))"
        case .failed(_, let error, let duration):
            return "\(target) failed after \(Self.format(duration)): \(ErrorText.describe(error))"
        }
    }

    private static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return format(seconds: Double(seconds) + Double(attoseconds) / 1e18)
    }

    private static func format(seconds: Double) -> String {
        seconds < 1
            ? String(format: "%.1f ms", seconds * 1000)
            : String(format: "%.2f s", seconds)
    }
}
