import Foundation

extension Middleware where Self == RetryingMiddleware {
    /// A middleware that tries failed calls again, as `policy` says: backoff with jitter, `Retry-After`, a deadline
    /// across attempts.
    ///
    /// ```swift
    /// let api = session.with(.retry(RetryPolicy(maximumAttempts: 4, deadline: 30)))
    /// ```
    ///
    /// A cancelled call is never retried. When a call that was retried fails in the end, the error is
    /// ``FetchError/attemptsExhausted(attempts:lastError:request:)``, which says how many attempts were made; a call
    /// that failed on its first and only attempt delivers its error unchanged. Each wait is reported as
    /// ``FetchEvent/retrying(_:attempt:delay:reason:)`` to the call's observers (an ``Middleware/observe(_:)`` anywhere in the
    /// stack). Where it stands decides what the middlewares inside it see: each of them runs once per attempt.
    ///
    /// - Parameters:
    ///   - policy: When and how often to retry. The default is `RetryPolicy()`.
    ///   - scheduler: The clock for waits and the deadline. The default is real time; FetchTesting's
    ///     `TestScheduler` runs retries synchronously.
    /// - Returns: The middleware.
    public static func retry(
        _ policy: RetryPolicy = RetryPolicy(),
        scheduler: any Scheduling = DispatchScheduler()
    ) -> RetryingMiddleware {
        RetryingMiddleware(policy: policy, scheduler: scheduler)
    }
}

/// Retries a call's attempts through `next` as a ``RetryPolicy`` says: made by ``Middleware/retry(_:scheduler:)``.
public struct RetryingMiddleware: Middleware {
    let policy: RetryPolicy
    let scheduler: any Scheduling

    /// One call's attempts: how many were made, and the one in flight or the wait before the next.
    private struct Attempts {
        var made = 0
        var current: (any CancellableCall)?
        var isOver = false
    }

    /// Sends `request` through `next`, and again after a wait for as long as the policy retries its answer.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        let attempts = Locked(Attempts())
        /// Ends the call with `result` unless it has ended, and stops what is in flight.
        let finish: @Sendable (Result<Response, any Error>) -> Void = { result in
            let current = attempts.withLock { state -> (any CancellableCall)?? in
                guard !state.isOver else {
                    return nil
                }
                state.isOver = true
                defer { state.current = nil }
                return .some(state.current)
            }
            guard let current else {
                return
            }
            current?.cancel()
            completion(Self.finalResult(result, attempts: attempts.withLock { $0.made }, request: request))
        }
        if let deadline = policy.deadline {
            let timer = scheduler.scheduleTimeout(after: deadline) {
                finish(.failure(FetchError.timedOut(request: request, seconds: deadline)))
            }
            context.onCancel { timer.cancel() }
            attempt(request, context: context, next: next, attempts: attempts) { result in
                timer.cancel()
                finish(result)
            }
        } else {
            attempt(request, context: context, next: next, attempts: attempts, finish: finish)
        }
    }

    private func attempt(
        _ request: any Request,
        context: CallContext,
        next: Next,
        attempts: Locked<Attempts>,
        finish: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        let number = attempts.withLock { state -> Int? in
            guard !state.isOver else {
                return nil
            }
            state.made += 1
            return state.made
        }
        guard let number else {
            return
        }
        let step = next(request) { outcome in
            let decision = policy.decide(
                after: outcome,
                method: request.method,
                attempt: number,
                now: scheduler.now,
                random: Double.random(in: 0...1)
            )
            switch decision {
            case .retry(let delay, let reason):
                let event = FetchEvent.retrying(request, attempt: number + 1, delay: delay, reason: reason)
                context.report(event)
                let wait = scheduler.schedule(after: delay) {
                    attempt(request, context: context, next: next, attempts: attempts, finish: finish)
                }
                Self.keep(wait, in: attempts)
                context.onCancel { wait.cancel() }
            case .deliver:
                finish(outcome)
            }
        }
        Self.keep(step, in: attempts)
    }

    /// Makes `step` the one a deadline stops; stops it at once when the call is over.
    private static func keep(_ step: any CancellableCall, in attempts: Locked<Attempts>) {
        let isOver = attempts.withLock { state in
            if !state.isOver {
                state.current = step
            }
            return state.isOver
        }
        if isOver {
            step.cancel()
        }
    }

    /// What a call delivers after `attempts` attempts: the last answer unchanged after one; after more, a success,
    /// or ``FetchError/attemptsExhausted(attempts:lastError:request:)`` with the last error, or with the last response
    /// outside 2xx as ``FetchError/unacceptableStatus(_:)`` (which the pipeline reads with the error parser).
    private static func finalResult(
        _ result: Result<Response, any Error>,
        attempts: Int,
        request: any Request
    ) -> Result<Response, any Error> {
        guard attempts > 1 else {
            return result
        }
        switch result {
        case .success(let response) where response.isSuccess:
            return result
        case .success(let response):
            return .failure(
                FetchError.attemptsExhausted(
                    attempts: attempts, lastError: FetchError.unacceptableStatus(response), request: request))
        case .failure(let error):
            return .failure(FetchError.attemptsExhausted(attempts: attempts, lastError: error, request: request))
        }
    }
}
