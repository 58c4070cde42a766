import Foundation

extension Middleware where Self == InterceptingMiddleware {
    /// A middleware made from a closure: the closure is its ``Middleware/intercept(_:context:next:completion:)``.
    ///
    /// ```swift
    /// let api = session.with(
    ///     .intercept { request, context, next, completion in
    ///         var signed = AdaptedRequest(request)
    ///         signed.headers["X-Signature"] = "k"
    ///         next(signed) { answer in
    ///             completion(answer)
    ///         }
    ///     })
    /// ```
    ///
    /// The closure keeps every rule of a ``Middleware``: it answers through `completion`, and may call `next` any
    /// number of times. `.adapt { request in … }` is the shorter form for a middleware that only changes
    /// the request.
    ///
    /// - Parameter intercept: Handles one call, as ``Middleware/intercept(_:context:next:completion:)`` does.
    /// - Returns: The middleware.
    public static func intercept(
        _ intercept:
            @escaping @Sendable (
                _ request: any Request, _ context: CallContext, _ next: Next,
                _ completion: @escaping @Sendable (Result<Response, any Error>) -> Void
            ) -> Void
    ) -> InterceptingMiddleware {
        InterceptingMiddleware(body: intercept)
    }
}

/// A middleware made from a closure: made by ``Middleware/intercept(_:)``, and by the request-changing
/// `.adapt { request in … }`, ``Middleware/header(_:_:)`` and ``Middleware/requestID(_:)``.
public struct InterceptingMiddleware: Middleware {
    private let body:
        @Sendable (any Request, CallContext, Next, @escaping @Sendable (Result<Response, any Error>) -> Void) -> Void

    init(
        body:
            @escaping @Sendable (
                any Request, CallContext, Next, @escaping @Sendable (Result<Response, any Error>) -> Void
            ) -> Void
    ) {
        self.body = body
    }

    /// Runs the closure the middleware was made from.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        body(request, context, next, completion)
    }
}
