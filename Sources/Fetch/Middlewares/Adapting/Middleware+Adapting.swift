import Foundation

extension Middleware where Self == InterceptingMiddleware {
    /// A middleware that changes each request before passing it on: `adapt` edits an ``AdaptedRequest`` made from
    /// it.
    ///
    /// ```swift
    /// let api = session.with(
    ///     .header("User-Agent", "Fetch-Example/1.0"),
    ///     .requestID(),
    ///     .adapt { request in
    ///         request.headers["Accept-Language"] = Locale.current.identifier
    ///     })
    /// ```
    ///
    /// The middlewares inside it and the transport receive the ``AdaptedRequest``; the caller's response still
    /// answers its own request. A thrown error fails the call with that error, and nothing is sent. `adapt` runs
    /// on the caller's thread, so that a call over a synchronous double stays synchronous.
    ///
    /// - Parameter adapt: Changes the request in place.
    /// - Returns: The middleware.
    public static func adapt(_ adapt: @escaping @Sendable (inout AdaptedRequest) throws -> Void)
        -> InterceptingMiddleware
    {
        InterceptingMiddleware { request, _, next, completion in
            var adapted = AdaptedRequest(request)
            do {
                try adapt(&adapted)
            } catch {
                completion(.failure(error))
                return
            }
            next(adapted, completion: completion)
        }
    }

    /// A middleware that changes each request with an `async` closure, for example with a value from an actor: the
    /// closure runs in a new `Task`, which cancelling the call cancels.
    ///
    /// - Parameter adapt: Changes the request in place, or throws the error that fails the call.
    /// - Returns: The middleware.
    public static func adapt(
        _ adapt: @escaping @Sendable (inout AdaptedRequest) async throws -> Void
    ) -> InterceptingMiddleware {
        InterceptingMiddleware { request, context, next, completion in
            let task = Task {
                var adapted = AdaptedRequest(request)
                do {
                    try await adapt(&adapted)
                } catch {
                    completion(.failure(error))
                    return
                }
                next(adapted, completion: completion)
            }
            context.onCancel { task.cancel() }
        }
    }

    /// A middleware that sets a header field on each request that has no field of that name (the request's own
    /// fields win).
    ///
    /// A name or value that cannot be sent (a line break in the value, say) fails the call with
    /// ``FetchError/invalidRequest(_:)``, and nothing is sent.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value.
    /// - Returns: The middleware.
    public static func header(_ name: String, _ value: String) -> InterceptingMiddleware {
        adapt { request in
            try HeaderValidation.validate(
                name: name, value: value, in: "\(request.method) \(request.url.absoluteString)")
            if !request.headers.contains(name) {
                request.headers.append(name, value)
            }
        }
    }

    /// A middleware that sets `X-Request-ID` to a new UUID on each request that has none, so that client and server
    /// logs can be matched.
    ///
    /// - Parameter name: The field name. The default is `X-Request-ID`.
    /// - Returns: The middleware.
    public static func requestID(_ name: String = "X-Request-ID") -> InterceptingMiddleware {
        adapt { request in
            if !request.headers.contains(name) {
                request.headers.append(name, RandomUUID.string())
            }
        }
    }
}
