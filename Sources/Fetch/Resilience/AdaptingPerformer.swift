import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A performer that runs an ordered chain of ``RequestAdapting`` adapters on each request before passing it on.
///
/// The performer it wraps receives an ``AdaptedRequest``; the caller's response still answers its own request.
/// An adapter's error fails the call with that error, and nothing is sent.
public final class AdaptingPerformer: RequestPerforming {
    /// The performer the adapted requests go to.
    public let performer: any RequestPerforming

    /// The adapters, in the order they run.
    public let adapters: [any RequestAdapting]

    /// Creates a performer that adapts the requests it passes to `performer`.
    ///
    /// - Parameters:
    ///   - performer: The performer the adapted requests go to.
    ///   - adapters: The adapters, in the order they run.
    public init(wrapping performer: any RequestPerforming, adapters: [any RequestAdapting]) {
        self.performer = performer
        self.adapters = adapters
    }

    /// Adapts `request`, performs it, and parses the response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, on the wrapped performer's callback queue if it has one.
    /// - Returns: A handle that cancels the call, whether it is being adapted or sent.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        let deliver = Delivery(matching: performer, completion: completion)
        let call = CompositeCall { deliver(.failure(FetchError.cancelled)) }
        let urlRequest: URLRequest
        switch Exchange.makeURLRequest(for: request, defaultTimeout: nil) {
        case .success(let built):
            urlRequest = built
        case .failure(let error):
            if call.finish() {
                deliver(.failure(error))
            }
            return call
        }
        adapt(urlRequest, from: adapters[...]) { adapted in
            guard !call.isFinished else {
                return
            }
            switch adapted {
            case .failure(let error):
                if call.finish() {
                    deliver(.failure(error))
                }
            case .success(let adaptedRequest):
                let sent = AdaptedRequest(original: request, urlRequest: adaptedRequest)
                let step = self.performer.performDirectly(sent, errorParser: nil) {
                    (outcome: Result<Response, any Error>) in
                    if call.finish() {
                        deliver(outcome.flatMap { T.parse(response: $0.answering(request), errorParser: errorParser) })
                    }
                }
                call.track(step)
            }
        }
        return call
    }

    private func adapt(
        _ request: URLRequest,
        from adapters: ArraySlice<any RequestAdapting>,
        completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void
    ) {
        guard let adapter = adapters.first else {
            completion(.success(request))
            return
        }
        adapter.adapt(request) { result in
            switch result {
            case .success(let adapted):
                self.adapt(adapted, from: adapters.dropFirst(), completion: completion)
            case .failure:
                completion(result)
            }
        }
    }
}

// MARK: - CallbackQueueProviding

extension AdaptingPerformer: CallbackQueueProviding {
    package var deliveryQueue: OperationQueue? {
        (performer as? any CallbackQueueProviding)?.deliveryQueue
    }
}
