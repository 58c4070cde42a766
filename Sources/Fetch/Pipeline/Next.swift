/// The rest of a ``Pipeline`` from one middleware inward: the middlewares inside it, then the ``Transport``.
///
/// Calling it sends a request on for the same call; a middleware may call it as often as it needs to (a retry, a
/// replay). What it starts is cancelled with the call, or alone through the handle it returns (a deadline, say).
public struct Next: Sendable {
    private let stack: Pipeline.Stack
    private let index: Int
    private let context: CallContext

    init(stack: Pipeline.Stack, index: Int, context: CallContext) {
        self.stack = stack
        self.index = index
        self.context = context
    }

    /// Passes `request` on, as part of this call.
    ///
    /// - Parameters:
    ///   - request: The request to send on: the one the middleware received, or one it made from it (an
    ///     ``AdaptedRequest``, say).
    ///   - completion: Called exactly once with the response of any status, or the failure: with
    ///     ``FetchError/cancelled(request:)`` when the call or the returned handle cancels it first, at once and without
    ///     sending anything when the call has already been cancelled.
    /// - Returns: The handle that cancels this use of `next` alone; cancelling the call cancels it too.
    @discardableResult
    public func callAsFunction(
        _ request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        let inner = CallContext(inside: context, completion: completion)
        // A call cancelled already cancels `inner` at once, which answers `completion`.
        if context.track(inner) {
            stack.proceed(request, from: index, context: inner)
        }
        return inner
    }

    /// Passes `request` on as a call of its own, which cancelling this call does not cancel: for one request that
    /// several callers share, such as deduplication's.
    ///
    /// Events reported by the middlewares inside are reported to this call's observers too.
    ///
    /// - Parameters:
    ///   - request: The request to send on.
    ///   - completion: Called exactly once with the response or the failure; with ``FetchError/cancelled(request:)`` when
    ///     the returned handle cancels it first.
    /// - Returns: The handle that cancels the detached call.
    public func detached(
        _ request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        let detached = CallContext(inside: context, completion: completion)
        stack.proceed(request, from: index, context: detached)
        return detached
    }
}
