import Foundation

extension Middleware where Self == ObservingMiddleware {
    /// A middleware that reports every call it passes on as ``FetchEvent``s: started, then finished (status, bytes,
    /// duration) or failed, and the events other middlewares report about the call, such as each retry's wait.
    ///
    /// ```swift
    /// let api = session.with(.observe { event in print(event) })
    /// // GET https://api.example.com/users/1 → 200 OK, 312 bytes in 4.1 ms
    /// ```
    ///
    /// Where it stands in a stack decides what it sees. Outside a retry (`session.with(.observe { … }, .retry())`)
    /// it sees one call: started, each retry's wait, then how the call ended. Inside
    /// (`session.with(.retry(), .observe { … })`) it sees every attempt started and ended, and the waits between
    /// them.
    ///
    /// - Parameter onEvent: Called with each event, on the thread where it happens; keep it quick.
    /// - Returns: The middleware.
    public static func observe(_ onEvent: @escaping @Sendable (FetchEvent) -> Void) -> ObservingMiddleware {
        ObservingMiddleware(onEvent: onEvent)
    }
}

/// Reports each call it passes on, and observes the events the call's other middlewares report: made by
/// ``Middleware/observe(_:)``.
public final class ObservingMiddleware: Middleware {
    private let onEvent: @Sendable (FetchEvent) -> Void

    init(onEvent: @escaping @Sendable (FetchEvent) -> Void) {
        self.onEvent = onEvent
    }

    /// Reports `request` as started, passes it on through `next`, and reports how it ended.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        next(request, completion: observing(request, context: context, completion: completion))
    }

    /// Observes `context`'s events from now on, reports `request` as started, and returns `completion` reporting
    /// how the call ended first: what ``intercept(_:context:next:completion:)`` does around `next`, which a
    /// ``Pipeline`` does itself for the observers at the head of its stack (see `Pipeline.Stack`).
    func observing(
        _ request: any Request,
        context: CallContext,
        completion: @escaping CallContext.Completion
    ) -> CallContext.Completion {
        context.observeEvents(as: self, onEvent)
        let stopwatch = Stopwatch()
        let observers = context.observers
        let onEvent = onEvent
        onEvent(observers.traced(.started(request)))
        return { outcome in
            let duration = stopwatch.seconds
            switch outcome {
            case .success(let response):
                onEvent(
                    observers.traced(
                        .finished(
                            request, status: response.status, bytes: response.data?.count ?? 0, duration: duration)))
            case .failure(let error):
                onEvent(observers.traced(.failed(request, error: error, duration: duration)))
            }
            completion(outcome)
        }
    }
}
