import Foundation

/// How long to wait before trying again: exponential growth from a first delay, capped, with jitter. The one
/// backoff of Fetch, held by ``RetryPolicy`` (retries, and a download's resumption) and by ``ReconnectPolicy``
/// (Server-Sent Events).
///
/// ```swift
/// let patient = RetryPolicy(maximumAttempts: 6, backoff: Backoff(initialDelay: 1, maximumDelay: 60))
/// ```
///
/// The wait after `n` failures in a row is `initialDelay × multiplierⁿ⁻¹`, at most `maximumDelay`, less a random
/// share of up to `jitter` of it (so that many clients do not try again in step). A negative or NaN delay counts as
/// none, and `jitter` is held within 0…1.
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure, in seconds.
    package let initialDelay: TimeInterval
    /// How much longer each wait is than the one before.
    package let multiplier: Double
    /// The longest wait, in seconds.
    package let maximumDelay: TimeInterval
    /// The share of each wait that is random, from 0 to 1.
    package let jitter: Double

    /// Creates a backoff; the defaults are ``RetryPolicy``'s.
    ///
    /// - Parameters:
    ///   - initialDelay: The wait after the first failure, in seconds. The default is 0.5 s.
    ///   - multiplier: How much longer each wait is than the one before; 1 waits the same each time. The default
    ///     is 2.
    ///   - maximumDelay: The longest wait, in seconds. The default is 30 s.
    ///   - jitter: The share of each wait that is random, from 0 (none) to 1 (anywhere between no wait and the
    ///     whole wait). The default is 0.2.
    public init(
        initialDelay: TimeInterval = 0.5,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 30,
        jitter: Double = 0.2
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter.isNaN ? 0 : min(max(jitter, 0), 1)
    }

    /// The wait after `failures` failures in a row (1 or more), starting from `first` instead of ``initialDelay``
    /// when given (a server's own reconnection time): exponential, capped at ``maximumDelay``, with jitter taken
    /// off.
    ///
    /// - Parameters:
    ///   - failures: The failures in a row so far; 0 or less waits `first` (or ``initialDelay``) alone.
    ///   - first: The wait after the first failure, if not ``initialDelay``.
    ///   - random: A number in 0...1 that picks the jitter; 0 takes none off.
    /// - Returns: The wait, in seconds: never negative, NaN or above ``maximumDelay`` (when that is positive).
    package func delay(afterFailures failures: Int, startingAt first: TimeInterval? = nil, random: Double)
        -> TimeInterval
    {
        let start = first ?? initialDelay
        let exponential = start * pow(multiplier, Double(max(failures - 1, 0)))
        let capped = exponential <= maximumDelay ? exponential : maximumDelay
        let randomShare = random.isNaN ? 0 : min(max(random, 0), 1)
        let wait = capped * (1 - jitter * randomShare)
        return wait >= 0 ? wait : 0
    }
}
