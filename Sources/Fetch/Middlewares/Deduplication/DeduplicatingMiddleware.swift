import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Middleware where Self == DeduplicatingMiddleware {
    /// A middleware that lets identical safe requests in flight share one request.
    ///
    /// While a `GET` or `HEAD` request is in flight, another request for the same method, URL and header fields (and
    /// no body) joins it instead of sending a request of its own:
    ///
    /// ```swift
    /// let api = session.with(.deduplicate())
    /// async let first: User = api.perform(GetUser(id: 1))
    /// async let second: User = api.perform(GetUser(id: 1))  // no second request reaches the server
    /// ```
    ///
    /// Each caller still gets its own completion, with the response parsed as its own type and read by its own error
    /// parser. A caller that cancels gets ``FetchError/cancelled(request:)`` and leaves the others waiting; the
    /// shared request is cancelled only when every caller has cancelled. Streams and other requests pass through
    /// unchanged. Requests are shared among the calls that go through the same middleware value.
    ///
    /// A call that joins reports ``FetchEvent/Name/joined`` to its observers, with the first caller's request as
    /// ``FetchEvent/initiator``; the shared request's own events (its attempts) reach the first caller's observers
    /// only.
    ///
    /// - Returns: The middleware.
    public static func deduplicate() -> DeduplicatingMiddleware {
        DeduplicatingMiddleware()
    }
}

/// Shares one detached call of `next` between the callers of identical safe requests in flight: made by
/// ``Middleware/deduplicate()``.
///
/// `Sendable`: its mutable state is behind `flights`' lock.
public final class DeduplicatingMiddleware: Middleware {
    private let flights = Locked([FlightKey: Flight]())

    init() {}

    /// The number of shared requests in flight, for tests and diagnostics.
    package var requestsInFlight: Int {
        flights.withLock { $0.count }
    }

    /// Joins `request` to an identical safe request in flight, or passes it on through `next` as a new one.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        // A stream's body can be read by one caller only.
        guard !context.isStreaming, let key = FlightKey(request) else {
            next(request, completion: completion)
            return
        }
        let waiter = Waiter(deliver: completion)
        let (flight, isNew) = flights.withLock { flights -> (Flight, Bool) in
            if let flight = flights[key], flight.join(waiter) {
                return (flight, false)
            }
            let flight = Flight(initiator: request)
            _ = flight.join(waiter)
            flights[key] = flight
            return (flight, true)
        }
        context.onCancel { [weak self] in
            if flight.leave(waiter) {
                self?.remove(flight, for: key)
            }
        }
        if !isNew, !context.observers.isEmpty {
            context.report(.initiated(.joined, request, by: flight.initiator))
        }
        // Held until now, so that a shared request that ends meanwhile answers after the call reported its joining.
        waiter.release()
        if isNew {
            let upstream = next.detached(request) { [weak self] result in
                self?.remove(flight, for: key)
                flight.finish(with: result)
            }
            flight.attach(upstream)
        }
    }

    private func remove(_ flight: Flight, for key: FlightKey) {
        flights.withLock { flights in
            if flights[key] === flight {
                flights[key] = nil
            }
        }
    }
}

/// What makes two requests the same shared request: a safe method, the URL and every header field, and no body.
private struct FlightKey: Hashable {
    let method: String
    let url: String
    let headers: [String]

    /// The key of `request`, or `nil` when it must not be shared: not `GET` or `HEAD`, has a body, or cannot be
    /// built (the wrapped performer reports that error itself).
    init?(_ request: any Request) {
        guard request.method == .get || request.method == .head,
            let urlRequest = try? request.makeURLRequest(),  // nil: not shared; base reports the error
            urlRequest.httpBody == nil, urlRequest.httpBodyStream == nil,
            let url = urlRequest.url
        else {
            return nil
        }
        method = request.method.rawValue
        self.url = url.absoluteString
        headers = (urlRequest.allHTTPHeaderFields ?? [:])
            .map { "\($0.key.lowercased()):\($0.value)" }
            .sorted()
    }
}

/// One caller of a shared request: its own delivery, held until the caller has reported joining.
private final class Waiter: Sendable {
    private struct State {
        var isHeld = true
        var held: Result<Response, any Error>?
    }

    private let deliverNow: @Sendable (Result<Response, any Error>) -> Void
    private let state = Locked(State())

    init(deliver: @escaping @Sendable (Result<Response, any Error>) -> Void) {
        self.deliverNow = deliver
    }

    /// Delivers `result` to the caller, or keeps it until ``release()``.
    func deliver(_ result: Result<Response, any Error>) {
        let now = state.withLock { state -> Bool in
            guard state.isHeld else {
                return true
            }
            state.held = result
            return false
        }
        if now {
            deliverNow(result)
        }
    }

    /// Lets results through, delivering the one kept meanwhile.
    func release() {
        let held = state.withLock { state -> Result<Response, any Error>? in
            state.isHeld = false
            defer { state.held = nil }
            return state.held
        }
        if let held {
            deliverNow(held)
        }
    }
}

/// One shared request in flight and the callers waiting for it.
///
/// Whoever removes a waiter from `state` under its lock (the response arriving, or that caller cancelling) is the
/// one that completes it, which makes every caller's completion run exactly once.
private final class Flight: Sendable {
    /// The request of the caller that started the shared request.
    let initiator: any Request

    private struct State {
        var waiters: [ObjectIdentifier: Waiter] = [:]
        var upstream: (any CancellableCall)?
        /// Finished, or cancelled by every caller: no one may join any more.
        var isClosed = false
        var isCancelled = false
    }

    private let state = Locked(State())

    init(initiator: any Request) {
        self.initiator = initiator
    }

    /// Adds a caller; returns `false` when the flight is closed and the caller must start a new one.
    func join(_ waiter: Waiter) -> Bool {
        state.withLock { state in
            guard !state.isClosed else {
                return false
            }
            state.waiters[ObjectIdentifier(waiter)] = waiter
            return true
        }
    }

    /// Keeps the wrapped performer's handle, or cancels it at once when every caller has already cancelled.
    func attach(_ upstream: any CancellableCall) {
        let cancelNow = state.withLock { state in
            state.upstream = upstream
            return state.isCancelled
        }
        if cancelNow {
            upstream.cancel()
        }
    }

    /// Completes every caller still waiting with the shared result.
    func finish(with result: Result<Response, any Error>) {
        let waiters = state.withLock { state in
            state.isClosed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.deliver(result)
        }
    }

    /// Takes `waiter` out (its call was cancelled, and the pipeline reports that), and cancels the shared request
    /// when no caller is left. Returns whether this closed the flight.
    func leave(_ waiter: Waiter) -> Bool {
        let (closed, upstream) = state.withLock { state -> (Bool, (any CancellableCall)?) in
            guard state.waiters.removeValue(forKey: ObjectIdentifier(waiter)) != nil, state.waiters.isEmpty,
                !state.isClosed
            else {
                return (false, nil)
            }
            state.isClosed = true
            state.isCancelled = true
            return (true, state.upstream)
        }
        upstream?.cancel()
        return closed
    }
}
