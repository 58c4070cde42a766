import Foundation

/// A performer that tries failed requests again, as a ``RetryPolicy`` says: backoff with jitter, `Retry-After`,
/// a deadline across attempts.
///
/// ```swift
/// let performer = session.retrying(RetryPolicy(maximumAttempts: 4, deadline: 30))
/// ```
///
/// A cancelled call is never retried. When a call that was retried fails in the end, the error is
/// ``FetchError/attemptsExhausted(attempts:lastError:)``, which says how many attempts were made; a call that failed
/// on its first and only attempt delivers its error unchanged. Waits go through a ``Scheduling`` clock, so tests
/// with FetchTesting's `TestScheduler` and `MockPerformer` run retries synchronously.
public final class RetryingPerformer: RequestPerforming {
    /// The performer each attempt goes to.
    public let performer: any RequestPerforming

    /// When and how often to retry.
    public let policy: RetryPolicy

    private let scheduler: any Scheduling
    private let onEvent: (@Sendable (FetchEvent) -> Void)?

    /// Creates a performer that retries the calls it passes to `performer`.
    ///
    /// - Parameters:
    ///   - performer: The performer each attempt goes to.
    ///   - policy: When and how often to retry. The default is ``RetryPolicy/default``.
    ///   - scheduler: The clock for waits and the deadline. The default is real time.
    ///   - onEvent: Called with ``FetchEvent/retrying(_:attempt:delay:reason:)`` before each wait.
    public init(
        wrapping performer: any RequestPerforming,
        policy: RetryPolicy = .default,
        scheduler: any Scheduling = DispatchScheduler(),
        onEvent: (@Sendable (FetchEvent) -> Void)? = nil
    ) {
        self.performer = performer
        self.policy = policy
        self.scheduler = scheduler
        self.onEvent = onEvent
    }

    /// Performs `request`, retrying it as the policy says, and parses the final response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, on the wrapped performer's callback queue if it has one.
    /// - Returns: A handle that cancels the attempt in flight or the wait, and completes with
    ///   ``FetchError/cancelled``.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        let deliver = Delivery(matching: performer, completion: completion)
        let call = CompositeCall { deliver(.failure(FetchError.cancelled)) }
        let attempts = Locked(0)
        if let deadline = policy.deadline {
            let timer = scheduler.scheduleTimeout(after: deadline) {
                call.end {
                    let made = attempts.withLock { $0 }
                    deliver(.failure(Self.finalError(FetchError.timedOut, attempts: made)))
                }
            }
            call.onEnd { timer.cancel() }
        }
        attempt(request, errorParser: errorParser, call: call, attempts: attempts, deliver: deliver)
        return call
    }

    private func attempt<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        call: CompositeCall,
        attempts: Locked<Int>,
        deliver: Delivery<T>
    ) {
        guard !call.isFinished else {
            return
        }
        let number = attempts.withLock { count in
            count += 1
            return count
        }
        let step = performer.performDirectly(request, errorParser: nil) { (outcome: Result<Response, any Error>) in
            guard !call.isFinished else {
                return
            }
            let decision = self.policy.decide(
                after: outcome,
                method: request.method,
                attempt: number,
                now: self.scheduler.now,
                random: Double.random(in: 0...1)
            )
            switch decision {
            case .retry(let delay, let reason):
                self.onEvent?(.retrying(request, attempt: number + 1, delay: delay, reason: reason))
                let wait = self.scheduler.schedule(after: delay) {
                    self.attempt(request, errorParser: errorParser, call: call, attempts: attempts, deliver: deliver)
                }
                call.track(wait)
            case .deliver:
                guard call.finish() else {
                    return
                }
                let result = outcome.flatMap { T.parse(response: $0.answering(request), errorParser: errorParser) }
                deliver(result.mapError { Self.finalError($0, attempts: number) })
            }
        }
        call.track(step)
    }
}

extension RetryingPerformer {
    /// The error a call delivers after `attempts` attempts: unchanged after one, or saying how many were made.
    fileprivate static func finalError(_ error: any Error, attempts: Int) -> any Error {
        attempts > 1 ? FetchError.attemptsExhausted(attempts: attempts, lastError: error) : error
    }
}
