import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Middleware where Self == AdaptingMiddleware {
    /// A middleware that runs `adapters` in order on each request before passing it on.
    ///
    /// ```swift
    /// let api = session.with(
    ///     .adapt([
    ///         .header("User-Agent", "Fetch-Example/1.0"),
    ///         .requestID(),
    ///     ]))
    /// ```
    ///
    /// The middlewares inside it and the transport receive an ``AdaptedRequest``; the caller's response still
    /// answers its own request. An adapter's error fails the call with that error, and nothing is sent.
    ///
    /// - Parameter adapters: The adapters, in the order they run.
    /// - Returns: The middleware.
    public static func adapt(_ adapters: [any RequestAdapting]) -> AdaptingMiddleware {
        AdaptingMiddleware(adapters: adapters)
    }
}

/// Runs the adapters in order on each request's `URLRequest`, then passes it on as an ``AdaptedRequest``: made by
/// ``Middleware/adapt(_:)``.
public struct AdaptingMiddleware: Middleware {
    let adapters: [any RequestAdapting]

    /// Adapts `request` and passes the adapted request on through `next`.
    public func intercept(
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
