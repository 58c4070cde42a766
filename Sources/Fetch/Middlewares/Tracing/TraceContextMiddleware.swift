import Foundation

extension Middleware where Self == TraceContextMiddleware {
    /// A middleware that propagates W3C Trace Context: every attempt of a call sends `traceparent` (and
    /// `tracestate` when the trace has one), in one trace, each with a span of its own.
    ///
    /// ```swift
    /// let api = session.with(.traceContext(), .retry())
    /// let user: User = try await TraceContext.$current.withValue(incoming) {
    ///     try await api.perform(GetUser(id: 1))
    /// }
    /// ```
    ///
    /// The call continues the first trace it finds of:
    /// 1. the request's own `traceparent` (and `tracestate`) field, when it is valid;
    /// 2. `trace`;
    /// 3. ``TraceContext/current``, read when the call reaches this middleware (stand it outermost, so that no
    ///    middleware outside it leaves the task first);
    /// 4. otherwise a new trace, sampled, which the call's events carry so that a log can name it.
    ///
    /// Each attempt that reaches the transport (a retry, a replay after a token refresh, a stream's reconnection)
    /// gets a new random span id, whatever the middleware's place in the stack, so that the server's records tell
    /// attempts apart; the span it continues is never sent again. The redirects one attempt follows carry its
    /// fields as they are. The middlewares inside it see the request without the fields: the transport's step adds
    /// them, so that a recording or a cache key does not depend on random ids.
    ///
    /// Events reported about the call once the trace is known carry it in ``FetchEvent/trace``: an attempt's
    /// events (``FetchEvent/Name/attemptStarted``, ``FetchEvent/Name/attemptFinished``,
    /// ``FetchEvent/Name/redirected``) with the attempt's span, the others with the span the call continues (or, in
    /// a new trace, the span that stands for the call, which no request sends).
    ///
    /// - Parameter trace: The trace to continue, or `nil` (the default) for ``TraceContext/current`` or a new one.
    /// - Returns: The middleware.
    public static func traceContext(_ trace: TraceContext? = nil) -> TraceContextMiddleware {
        TraceContextMiddleware(trace: trace)
    }
}

/// Sends W3C Trace Context with every attempt of a call: made by ``Middleware/traceContext(_:)``.
public struct TraceContextMiddleware: Middleware {
    let trace: TraceContext?

    /// Sets the trace the call continues, when it has none yet, and passes the call on: the transport's step sends
    /// it with a span for each attempt.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        context.observers.setTrace { Self.trace(of: request) ?? trace ?? TraceContext.current ?? TraceContext() }
        next(request, completion: completion)
    }

    /// The trace of the request's own `traceparent` and `tracestate` fields, when it has a valid one.
    private static func trace(of request: any Request) -> TraceContext? {
        let headers = request.headers
        guard let traceparent = headers["traceparent"] else {
            return nil
        }
        return TraceContext(traceparent: traceparent, tracestate: headers["tracestate"])
    }

    /// `request` as `attempt` sends it: with the attempt's `traceparent`, and its `tracestate` or none.
    package static func stamping(_ request: any Request, with attempt: TraceContext) -> any Request {
        var stamped = AdaptedRequest(request)
        stamped.headers["traceparent"] = attempt.traceparent
        if attempt.state != nil || stamped.headers.contains("tracestate") {
            stamped.headers["tracestate"] = attempt.state
        }
        return stamped
    }
}
