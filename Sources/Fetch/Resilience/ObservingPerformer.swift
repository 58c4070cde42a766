import Foundation

/// A performer that reports every call it passes on as ``FetchEvent``s: started, then finished (status, bytes,
/// duration) or failed.
///
/// ```swift
/// let performer = session.observing { event in print(event) }
/// // GET https://api.example.com/users/1 → 200 OK, 312 bytes in 4.1 ms
/// ```
///
/// Put it innermost (right around the `Session`) to see every attempt of a retried call.
public final class ObservingPerformer: RequestPerforming {
    /// The performer the calls go to.
    public let performer: any RequestPerforming

    private let onEvent: @Sendable (FetchEvent) -> Void

    /// Creates a performer that reports the calls it passes to `performer`.
    ///
    /// - Parameters:
    ///   - performer: The performer the calls go to.
    ///   - onEvent: Called with each event, on the thread where it happens; keep it quick.
    public init(wrapping performer: any RequestPerforming, onEvent: @escaping @Sendable (FetchEvent) -> Void) {
        self.performer = performer
        self.onEvent = onEvent
    }

    /// Reports `request` as started, performs it, reports how it ended, and parses the response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, on the wrapped performer's callback queue if it has one.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        let deliver = Delivery(matching: performer, completion: completion)
        let started = ContinuousClock.now
        onEvent(.started(request))
        return performer.performDirectly(request, errorParser: nil) { (outcome: Result<Response, any Error>) in
            let duration = ContinuousClock.now - started
            switch outcome {
            case .success(let response):
                self.onEvent(
                    .finished(request, status: response.status, bytes: response.data?.count ?? 0, duration: duration)
                )
            case .failure(let error):
                self.onEvent(.failed(request, error: error, duration: duration))
            }
            deliver(outcome.flatMap { T.parse(response: $0.answering(request), errorParser: errorParser) })
        }
    }
}

// MARK: - CallbackQueueProviding

extension ObservingPerformer: CallbackQueueProviding {
    package var deliveryQueue: OperationQueue? {
        (performer as? any CallbackQueueProviding)?.deliveryQueue
    }
}
