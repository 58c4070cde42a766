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

    /// The pipeline: the adapting middleware in front of ``performer``'s.
    public let pipeline: Pipeline

    /// Creates a performer that adapts the requests it passes to `performer`.
    ///
    /// - Parameters:
    ///   - performer: The performer the adapted requests go to.
    ///   - adapters: The adapters, in the order they run.
    public init(wrapping performer: any RequestPerforming, adapters: [any RequestAdapting]) {
        self.performer = performer
        self.adapters = adapters
        self.pipeline = performer.pipeline.adding(AdaptingMiddleware(adapters: adapters))
    }

    /// Adapts `request`, performs it, and parses the response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, on the innermost session's callback queue if there is one.
    /// - Returns: A handle that cancels the call, whether it is being adapted or sent.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }
}

/// Runs the adapters in order on each request's `URLRequest`, then passes it on as an ``AdaptedRequest``.
private struct AdaptingMiddleware: Middleware {
    let adapters: [any RequestAdapting]

    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        let urlRequest: URLRequest
        switch Exchange.makeURLRequest(for: request, defaultTimeout: nil) {
        case .success(let built):
            urlRequest = built
        case .failure(let error):
            completion(.failure(error))
            return
        }
        adapt(urlRequest, from: adapters[...]) { adapted in
            switch adapted {
            case .failure(let error):
                completion(.failure(error))
            case .success(let adaptedRequest):
                next(AdaptedRequest(original: request, urlRequest: adaptedRequest), completion: completion)
            }
        }
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
                adapt(adapted, from: adapters.dropFirst(), completion: completion)
            case .failure:
                completion(result)
            }
        }
    }
}
