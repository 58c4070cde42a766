import Foundation

/// A performer that reports every call it passes on as ``FetchEvent``s: started, then finished (status, bytes,
/// duration) or failed, and the events other middlewares report about the call, such as each retry's wait.
///
/// ```swift
/// let performer = session.observing { event in print(event) }
/// // GET https://api.example.com/users/1 → 200 OK, 312 bytes in 4.1 ms
/// ```
///
/// Where it stands in a stack decides what it sees. Outside `retrying` (`session.retrying().observing { … }`) it
/// sees one call: started, each retry's wait, then how the call ended. Inside (`session.observing { … }.retrying()`)
/// it sees every attempt started and ended, and the waits between them.
public final class ObservingPerformer: RequestPerforming {
    /// The performer the calls go to.
    public let performer: any RequestPerforming

    /// The pipeline: the observing middleware in front of ``performer``'s.
    public let pipeline: Pipeline

    /// Creates a performer that reports the calls it passes to `performer`.
    ///
    /// - Parameters:
    ///   - performer: The performer the calls go to.
    ///   - onEvent: Called with each event, on the thread where it happens; keep it quick.
    public init(wrapping performer: any RequestPerforming, onEvent: @escaping @Sendable (FetchEvent) -> Void) {
        self.performer = performer
        self.pipeline = performer.pipeline.adding(ObservingMiddleware(onEvent: onEvent))
    }

    /// Reports `request` as started, performs it, reports how it ended, and parses the response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, on the innermost session's callback queue if there is one.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }
}

/// Reports each call it passes on, and observes the events the call's other middlewares report.
private final class ObservingMiddleware: Middleware {
    private let onEvent: @Sendable (FetchEvent) -> Void

    init(onEvent: @escaping @Sendable (FetchEvent) -> Void) {
        self.onEvent = onEvent
    }

    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        context.observeEvents(as: self, onEvent)
        let started = ContinuousClock.now
        onEvent(.started(request))
        next(request) { outcome in
            let duration = ContinuousClock.now - started
            switch outcome {
            case .success(let response):
                self.onEvent(
                    .finished(request, status: response.status, bytes: response.data?.count ?? 0, duration: duration)
                )
            case .failure(let error):
                self.onEvent(.failed(request, error: error, duration: duration))
            }
            completion(outcome)
        }
    }
}
