/// Behaviour around a call: what a step of a ``Pipeline`` does with the request on its way out and with the
/// response (or error) on its way back.
///
/// A middleware sees the raw ``Response`` of any status, never the parsed value. It may change the request before
/// passing it on, answer without calling `next` (a cache hit), call `next` more than once (a retry, a replay after a
/// token refresh) or share one call of `next` between several callers (``Next/detached(_:completion:)``).
///
/// The pipeline does the rest once, for every middleware: it parses the final response into the caller's type,
/// completes the caller exactly once, delivers on the session's callback queue, and cancels what the call started
/// through `next` when the call is cancelled. A middleware that answers twice is answered once; one that answers
/// after a cancellation is ignored.
///
/// ```swift
/// struct RequestSigner: Middleware {
///     let key: String
///
///     func intercept(
///         _ request: any Request,
///         context: CallContext,
///         next: Next,
///         completion: @escaping @Sendable (Result<Response, any Error>) -> Void
///     ) {
///         var signed = AdaptedRequest(request)
///         signed.headers["X-Signature"] = key
///         next(signed, completion: completion)
///     }
/// }
///
/// let performer = session.with(RequestSigner(key: "k"))
/// ```
///
/// A middleware that only changes the request is shorter as `.adapt { request in … }`; one from a closure
/// is ``Middleware/intercept(_:)``. To change a response, edit a copy of the one `next` answered
/// (`var changed = response; changed.headers["X-Cache"] = "miss"`): a streamed or WebSocket response keeps its body
/// or connection that way, which a ``Response`` made with its initialiser does not have.
///
/// Completions may come on any thread, and over the FetchTesting doubles before `next` returns: a middleware
/// must not assume either. Timers a middleware starts go through a ``Scheduling`` clock, and are cancelled with
/// the call through ``CallContext/onCancel(_:)``.
public protocol Middleware: Sendable {
    /// Handles one call: passes it on through `next`, answers it, or both.
    ///
    /// - Parameters:
    ///   - request: The request as it reaches this middleware, after the middlewares outside it.
    ///   - context: The call: its cancellation and the events reported about it.
    ///   - next: The rest of the pipeline, inward.
    ///   - completion: Called with this middleware's answer for the call. The pipeline uses the first answer and
    ///     ignores any later one.
    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    )
}
