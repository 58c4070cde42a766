import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Middleware where Self == AuthenticatingMiddleware {
    /// A middleware that applies `authenticator`'s credentials to every request and, when the server rejects them,
    /// refreshes them once and replays the rejected requests.
    ///
    /// ```swift
    /// let api = session.with(.authenticate(with: tokens))
    /// ```
    ///
    /// Refresh is single-flight: when 50 requests are rejected at once, one refresh runs and all 50 are replayed once
    /// with the new credentials. A request rejected with credentials older than a refresh that has already finished
    /// is replayed without another refresh. A request is replayed at most once: if the replay is rejected too, the
    /// caller receives that rejection. When the refresh fails, every waiting request fails with
    /// ``FetchError/credentialRefreshFailed(_:_:)``. Calls share a refresh when they go through the same middleware
    /// value: make it once and use it in every pipeline that shares the credentials.
    ///
    /// Each call replayed after a refresh reports ``FetchEvent/Name/credentialRefreshed`` to its observers before
    /// its replay, with the request whose rejection started the refresh as ``FetchEvent/initiator``: every call
    /// that shared one refresh names the same initiator. A refresh that fails reports nothing more: the calls fail
    /// with ``FetchError/credentialRefreshFailed(_:_:)``, which their ``FetchEvent/Name/failed`` event carries.
    ///
    /// - Parameter authenticator: The source of credentials.
    /// - Returns: The middleware.
    public static func authenticate(with authenticator: any Authenticator) -> AuthenticatingMiddleware {
        AuthenticatingMiddleware(authenticator: authenticator)
    }
}

/// Applies credentials to each request and refreshes them, single-flight, when the server rejects them: made by
/// ``Middleware/authenticate(with:)``.
///
/// `Sendable`: its mutable state is behind `state`'s lock.
public final class AuthenticatingMiddleware: Middleware {
    private struct State {
        /// Counts the refreshes that succeeded: a request sent with an older generation may simply be replayed.
        var generation = 0
        /// The calls waiting for the refresh in flight, or `nil` when none is in flight.
        var waiting: [@Sendable (Result<any Request, any Error>) -> Void]?
        /// The request whose rejection started the last refresh that succeeded.
        var lastInitiator: (any Request)?
    }

    private let authenticator: any Authenticator
    private let state = Locked(State())

    init(authenticator: any Authenticator) {
        self.authenticator = authenticator
    }

    /// Sends `request` with credentials through `next`, and once more after a refresh when they are rejected.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        send(request, isReplay: false, context: context, next: next, completion: completion)
    }

    private func send(
        _ request: any Request,
        isReplay: Bool,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        let generation = state.withLock { $0.generation }
        var authenticated = AdaptedRequest(request)
        do {
            try authenticator.apply(to: &authenticated)
        } catch {
            completion(.failure(error))
            return
        }
        next(authenticated) { outcome in
            guard !isReplay, case .success(let response) = outcome, self.authenticator.isRejection(response) else {
                completion(outcome)
                return
            }
            self.refresh(after: generation, initiator: request) { refreshed in
                guard !context.isCancelled else {
                    return
                }
                switch refreshed {
                case .success(let initiator):
                    if !context.observers.isEmpty {
                        context.report(.initiated(.credentialRefreshed, request, by: initiator))
                    }
                    self.send(request, isReplay: true, context: context, next: next, completion: completion)
                case .failure(let error):
                    completion(.failure(FetchError.credentialRefreshFailed(error, response.answering(request))))
                }
            }
        }
    }

    /// Calls `completion` once credentials newer than `generation` are in place, with the request whose rejection
    /// started the refresh that put them there: at once if a refresh has finished since, after the refresh in
    /// flight, or after a new refresh that this call, rejected as `initiator`, starts.
    private func refresh(
        after generation: Int,
        initiator: any Request,
        completion: @escaping @Sendable (Result<any Request, any Error>) -> Void
    ) {
        enum Step {
            case replayNow(any Request)
            case wait
            case startRefresh
        }
        let step = state.withLock { state -> Step in
            if state.generation > generation, let last = state.lastInitiator {
                return .replayNow(last)
            }
            if state.waiting != nil {
                state.waiting?.append(completion)
                return .wait
            }
            state.waiting = [completion]
            return .startRefresh
        }
        switch step {
        case .replayNow(let last):
            completion(.success(last))
        case .wait:
            break
        case .startRefresh:
            authenticator.refresh { result in
                let waiting = self.state.withLock { state in
                    if case .success = result {
                        state.generation += 1
                        state.lastInitiator = initiator
                    }
                    defer { state.waiting = nil }
                    return state.waiting ?? []
                }
                for waiter in waiting {
                    waiter(result.map { initiator })
                }
            }
        }
    }
}
