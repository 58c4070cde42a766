import Foundation

/// When and how often ``Middleware/retry(_:scheduler:)`` tries a request again.
///
/// The default retries only idempotent methods (`GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE`), up to 3
/// attempts in all, after a connection failure, a timeout, or a 408, 429, 502, 503 or 504; it waits with
/// exponential backoff and jitter, or as long as the server's `Retry-After` asks when that is at most 60 s
/// (`maximumRetryAfter`).
public struct RetryPolicy: Sendable {
    /// The most attempts in all, the first one included. `1` never retries. The default is 3.
    public var maximumAttempts: Int

    /// How long to wait before each retry that the server does not time with `Retry-After`. The default waits
    /// 0.5 s, then twice as long each time up to 30 s, less up to 20 % at random.
    public var backoff: Backoff

    /// The longest `Retry-After` honoured, in seconds. A server that asks for a longer wait gets no retry: the
    /// caller receives its answer at once. The default is 60 s.
    public var maximumRetryAfter: TimeInterval

    /// The longest time one call may take, all attempts and waits included, in seconds; `nil` for no limit. When it
    /// passes, the attempt in flight is cancelled and the call fails with ``FetchError/timedOut(request:seconds:)``. The default is
    /// `nil`.
    public var deadline: TimeInterval?

    /// The methods that are retried. The default is the idempotent ones; add `.post` only for endpoints that are
    /// safe to repeat (with an idempotency key, say).
    public var retryableMethods: Set<HTTPMethod>

    /// The statuses that are retried. The default is 408, 429, 502, 503 and 504.
    public var retryableStatuses: Set<Int>

    /// The transport failures that are retried. The default is the connection failures: cannot find or connect to
    /// the host, connection lost (reset, closed before answering or midway: the same code on every transport), not
    /// connected, DNS failure, and `badServerResponse`.
    public var retryableErrors: Set<URLError.Code>

    /// Whether a timeout is retried. The default is `true`.
    public var retriesTimeouts: Bool

    /// Creates a policy; every parameter has the default described on its property.
    ///
    /// - Parameters:
    ///   - maximumAttempts: The most attempts in all.
    ///   - backoff: The waits between attempts.
    ///   - maximumRetryAfter: The longest `Retry-After` honoured, in seconds.
    ///   - deadline: The longest time for the whole call, in seconds, or `nil`.
    ///   - retryableMethods: The methods that are retried.
    ///   - retryableStatuses: The statuses that are retried.
    ///   - retryableErrors: The transport failures that are retried.
    ///   - retriesTimeouts: Whether timeouts are retried.
    public init(
        maximumAttempts: Int = 3,
        backoff: Backoff = Backoff(),
        maximumRetryAfter: TimeInterval = 60,
        deadline: TimeInterval? = nil,
        retryableMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, "OPTIONS", "TRACE"],
        retryableStatuses: Set<Int> = [408, 429, 502, 503, 504],
        retryableErrors: Set<URLError.Code> = [
            .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet, .dnsLookupFailed,
            .badServerResponse,
        ],
        retriesTimeouts: Bool = true
    ) {
        self.maximumAttempts = maximumAttempts
        self.backoff = backoff
        self.maximumRetryAfter = maximumRetryAfter
        self.deadline = deadline
        self.retryableMethods = retryableMethods
        self.retryableStatuses = retryableStatuses
        self.retryableErrors = retryableErrors
        self.retriesTimeouts = retriesTimeouts
    }

    /// The default policy.
    package static let `default` = RetryPolicy()

    /// What to do after an attempt.
    package enum Decision: Equatable {
        /// Deliver this attempt's outcome.
        case deliver
        /// Try again after this many seconds; `reason` says why, for logs.
        case retry(after: TimeInterval, reason: String)
    }

    /// Decides whether to retry after attempt number `attempt` of `method` ended with `outcome`.
    ///
    /// - Parameters:
    ///   - outcome: The raw response, or the transport error.
    ///   - method: The request's method.
    ///   - attempt: The number of the attempt that just ended, from 1.
    ///   - now: The current time, for `Retry-After` dates.
    ///   - random: A random number in 0...1, for the jitter; read only for a retry (on Linux each read of the
    ///     system's generator is a system call, which an answer delivered as it is does not need).
    /// - Returns: Whether to deliver the outcome or retry, and after how long.
    package func decide(
        after outcome: Result<Response, any Error>,
        method: HTTPMethod,
        attempt: Int,
        now: Date,
        random: @autoclosure () -> Double
    ) -> Decision {
        guard attempt < maximumAttempts, retryableMethods.contains(method) else {
            return .deliver
        }
        switch outcome {
        case .success(let response):
            guard retryableStatuses.contains(response.status) else {
                return .deliver
            }
            let reason = HTTPStatus.line(response.status)
            if let header = response.headers["Retry-After"] {
                guard let wait = Self.retryAfter(header, now: now), wait <= maximumRetryAfter else {
                    return .deliver
                }
                return .retry(after: wait, reason: "\(reason), Retry-After: \(header)")
            }
            return .retry(after: backoff(beforeAttempt: attempt + 1, random: random()), reason: reason)
        case .failure(let error):
            switch error.fetchKind {
            case .timedOut where retriesTimeouts:
                return .retry(after: backoff(beforeAttempt: attempt + 1, random: random()), reason: "timed out")
            case .transport(let error, _) where retryableErrors.contains(error.code):
                return .retry(
                    after: backoff(beforeAttempt: attempt + 1, random: random()),
                    reason: "URLError \(error.code.rawValue)"
                )
            default:
                return .deliver
            }
        }
    }

    /// The backoff wait before attempt number `attempt` (2 or more): exponential, capped, with jitter taken off.
    package func backoff(beforeAttempt attempt: Int, random: Double) -> TimeInterval {
        backoff.delay(afterFailures: attempt - 1, random: random)
    }

    /// The wait a `Retry-After` value asks for, in seconds from `now`: delay-seconds or an HTTP-date
    /// (RFC 9110 §10.2.3). `nil` when the value is neither (`+5`, `-5`, `1.5`, `0x10`). Delay-seconds are read by
    /// ``WireNumber/deltaSeconds(_:)``, so a longer wait than 2^31 s reads as 2^31 s, far past any
    /// ``maximumRetryAfter``.
    package static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
        if let seconds = WireNumber.deltaSeconds(value) {
            return TimeInterval(seconds)
        }
        guard let date = HTTPDate.date(from: value.trimmingCharacters(in: .whitespaces)) else {
            return nil
        }
        return max(0, date.timeIntervalSince(now))
    }
}
