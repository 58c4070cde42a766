import Foundation

/// How a Server-Sent Events stream reconnects after its connection ends or fails.
///
/// The wait before a reconnection is the stream's reconnection time: ``retryDelay`` until the server sets its own
/// with a `retry:` field. Each failed attempt in a row (no response, a transport error) multiplies the wait by
/// ``backoffMultiplier``, up to ``maximumDelay``; a connection that opens resets it. After ``maximumAttempts`` failed
/// attempts in a row, the sequence ends with ``FetchError/attemptsExhausted(attempts:lastError:request:)``.
///
/// Whatever the server asks, the wait stays between 0.1 s and ``maximumDelay``: `retry: 9999999999999` waits
/// ``maximumDelay``, and `retry: 0` waits 0.1 s. A connection that ends before it has delivered an event lengthens
/// the next wait as a failed attempt does (without counting toward ``maximumAttempts``), until an event arrives, so
/// that a server that answers and hangs up at once is not called again in a tight loop.
///
/// A status outside 2xx, a `Content-Type` other than `text/event-stream` or a `204 No Content` are not retried:
/// the server has answered.
public struct ReconnectPolicy: Sendable {
    /// The wait before reconnecting, in seconds, until the server sets one with `retry:`. The default is 3 s.
    public var retryDelay: TimeInterval

    /// How many failed attempts in a row to reconnect are made before giving up; `nil` for no limit. The default
    /// is 5.
    public var maximumAttempts: Int?

    /// The factor by which each failed attempt in a row lengthens the wait. The default is 2; 1 waits the same time.
    public var backoffMultiplier: Double

    /// The longest wait, in seconds. The default is 60 s.
    public var maximumDelay: TimeInterval

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - retryDelay: The wait before reconnecting until the server sets one. The default is 3 s.
    ///   - maximumAttempts: Failed attempts in a row before giving up, or `nil` for no limit. The default is 5.
    ///   - backoffMultiplier: The lengthening of the wait per failed attempt in a row. The default is 2.
    ///   - maximumDelay: The longest wait. The default is 60 s.
    public init(
        retryDelay: TimeInterval = 3,
        maximumAttempts: Int? = 5,
        backoffMultiplier: Double = 2,
        maximumDelay: TimeInterval = 60
    ) {
        self.retryDelay = retryDelay
        self.maximumAttempts = maximumAttempts
        self.backoffMultiplier = backoffMultiplier
        self.maximumDelay = maximumDelay
    }

    /// The default policy: 3 s until the server says otherwise, doubled per failure in a row, 5 attempts.
    public static let `default` = ReconnectPolicy()

    /// Never reconnects: the sequence ends when the first connection does.
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// The shortest wait before reconnecting, in seconds, whatever the server or the policy ask: 0.1 s.
    package static let minimumDelay: TimeInterval = 0.1

    /// The wait before the next attempt.
    ///
    /// - Parameters:
    ///   - reconnectionTime: The server's `retry:` in milliseconds, or `nil` when it set none.
    ///   - failures: How many attempts in a row have failed so far (or ended before any event).
    /// - Returns: The wait, in seconds: at least 0.1 s, and at most ``maximumDelay`` (or 0.1 s, if that is less).
    public func delay(reconnectionTime: Int?, failures: Int) -> TimeInterval {
        let base = bounded(reconnectionTime.map { TimeInterval($0) / 1000 } ?? retryDelay)
        guard failures > 0 else {
            return base
        }
        return bounded(base * pow(backoffMultiplier, Double(failures)))
    }

    /// `delay` within ``minimumDelay`` and ``maximumDelay``; NaN (from a policy's own NaN) is the minimum.
    private func bounded(_ delay: TimeInterval) -> TimeInterval {
        let ceiling = maximumDelay >= Self.minimumDelay ? maximumDelay : Self.minimumDelay
        guard delay >= Self.minimumDelay else {
            return Self.minimumDelay
        }
        return delay <= ceiling ? delay : ceiling
    }
}
