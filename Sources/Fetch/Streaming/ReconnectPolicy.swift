import Foundation

/// How a Server-Sent Events stream or a ``WebSocket`` reconnects after its connection ends or fails.
///
/// A WebSocket reconnects after a drop (no close frame) or a server's close with 1001, 1011, 1012, 1013 or 1014,
/// with the backoff's waits (it has no `retry:`); a handshake the server refuses with a status is not retried. A
/// reconnection whose connection then ends before it delivered a message, within 60 s of opening, is a failed
/// attempt too: the count goes on across such connections (a server that closes with 1011 after every handshake
/// ends the sequence with ``FetchError/attemptsExhausted(attempts:lastError:request:)`` after ``maximumFailuresInARow``),
/// and only a connection that delivered a message or stayed open 60 s starts it again. What follows is about
/// Server-Sent Events.
///
/// The wait before a reconnection is the stream's reconnection time: the backoff's first delay until the server
/// sets its own with a `retry:` field. Each failed attempt in a row (no response, a transport error) lengthens the
/// wait as ``backoff`` says; a connection that opens resets it. After ``maximumFailuresInARow`` failed attempts in a row,
/// the sequence ends with ``FetchError/attemptsExhausted(attempts:lastError:request:)``.
///
/// Whatever the server asks, the wait stays between 0.1 s and the backoff's maximum delay: `retry: 9999999999999`
/// waits the maximum, and `retry: 0` waits 0.1 s. A connection that ends before it has delivered an event lengthens
/// the next wait as a failed attempt does (without counting toward ``maximumFailuresInARow``), until an event arrives, so
/// that a server that answers and hangs up at once is not called again in a tight loop.
///
/// A status outside 2xx, a `Content-Type` other than `text/event-stream` or a `204 No Content` are not retried:
/// the server has answered.
public struct ReconnectPolicy: Sendable {
    /// The waits before reconnecting. The default waits 3 s (until the server sets its own time), doubled per
    /// failed attempt in a row, up to 60 s, with no jitter.
    public var backoff: Backoff

    /// How many failed attempts in a row to reconnect are made before giving up; `nil` for no limit. The default
    /// is 5.
    public var maximumFailuresInARow: Int?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - backoff: The waits before reconnecting. The default waits 3 s, doubled per failure up to 60 s.
    ///   - maximumFailuresInARow: Failed attempts in a row before giving up, or `nil` for no limit. The default is 5.
    public init(
        backoff: Backoff = Backoff(initialDelay: 3, maximumDelay: 60, jitter: 0),
        maximumFailuresInARow: Int? = 5
    ) {
        self.backoff = backoff
        self.maximumFailuresInARow = maximumFailuresInARow
    }

    /// The default policy: 3 s until the server says otherwise, doubled per failure in a row, 5 attempts.
    package static let `default` = ReconnectPolicy()

    /// Never reconnects: the sequence ends when the first connection does.
    package static let never = ReconnectPolicy(maximumFailuresInARow: 0)

    /// The shortest wait before reconnecting, in seconds, whatever the server or the policy ask: 0.1 s.
    package static let minimumDelay: TimeInterval = 0.1

    /// The wait before the next attempt.
    ///
    /// - Parameters:
    ///   - reconnectionTime: The server's `retry:` in milliseconds, or `nil` when it set none.
    ///   - failures: How many attempts in a row have failed so far (or ended before any event).
    ///   - random: A number in 0...1 that picks the backoff's jitter. The default, 0, takes none off.
    /// - Returns: The wait, in seconds: at least 0.1 s, and at most the backoff's maximum delay (or 0.1 s, if that
    ///   is less).
    package func delay(reconnectionTime: Int?, failures: Int, random: Double = 0) -> TimeInterval {
        let first = bounded(reconnectionTime.map { TimeInterval($0) / 1000 } ?? backoff.initialDelay)
        guard failures > 0 else {
            return first
        }
        return bounded(backoff.delay(afterFailures: failures + 1, startingAt: first, random: random))
    }

    /// `delay` within ``minimumDelay`` and the backoff's maximum delay; NaN (from a policy's own NaN) is the minimum.
    private func bounded(_ delay: TimeInterval) -> TimeInterval {
        let maximumDelay = backoff.maximumDelay
        let ceiling = maximumDelay >= Self.minimumDelay ? maximumDelay : Self.minimumDelay
        guard delay >= Self.minimumDelay else {
            return Self.minimumDelay
        }
        return delay <= ceiling ? delay : ceiling
    }
}
