import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A performer that applies an ``Authenticator``'s credentials to every request and, when the server rejects them,
/// refreshes them once and replays the rejected requests.
///
/// Refresh is single-flight: when 50 requests are rejected at once, one refresh runs and all 50 are replayed once
/// with the new credentials. A request rejected with credentials older than a refresh that has already finished is
/// replayed without another refresh. A request is replayed at most once: if the replay is rejected too, the caller
/// receives that rejection. When the refresh fails, every waiting request fails with
/// ``FetchError/credentialRefreshFailed(_:_:)``.
public final class AuthenticatingPerformer: RequestPerforming {
    /// The performer the authenticated requests go to.
    public let performer: any RequestPerforming

    /// The source of credentials.
    public let authenticator: any Authenticator

    private struct State {
        /// Counts the refreshes that succeeded: a request sent with an older generation may simply be replayed.
        var generation = 0
        /// The calls waiting for the refresh in flight, or `nil` when none is in flight.
        var waiting: [@Sendable (Result<Void, any Error>) -> Void]?
    }

    private let state = Locked(State())

    /// Creates a performer that authenticates the requests it passes to `performer`.
    ///
    /// - Parameters:
    ///   - performer: The performer the authenticated requests go to.
    ///   - authenticator: The source of credentials.
    public init(wrapping performer: any RequestPerforming, authenticator: any Authenticator) {
        self.performer = performer
        self.authenticator = authenticator
    }

    /// Performs `request` with credentials, refreshing them and replaying the request once if they are rejected,
    /// and parses the final response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, on the wrapped performer's callback queue if it has one.
    /// - Returns: A handle that cancels the call, whether it is in flight or waiting for a refresh.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        let deliver = Delivery(matching: performer, completion: completion)
        let call = CompositeCall { deliver(.failure(FetchError.cancelled)) }
        send(request, isReplay: false, errorParser: errorParser, call: call, deliver: deliver)
        return call
    }

    private func send<T: Parsable>(
        _ request: any Request,
        isReplay: Bool,
        errorParser: (any ErrorParsing)?,
        call: CompositeCall,
        deliver: Delivery<T>
    ) {
        guard !call.isFinished else {
            return
        }
        let generation = state.withLock { $0.generation }
        let authenticated: AdaptedRequest
        do {
            var urlRequest = try Exchange.makeURLRequest(for: request, defaultTimeout: nil).get()
            try authenticator.apply(to: &urlRequest)
            authenticated = AdaptedRequest(original: request, urlRequest: urlRequest)
        } catch {
            if call.finish() {
                deliver(.failure(error))
            }
            return
        }
        let step = performer.performDirectly(authenticated, errorParser: nil) {
            (outcome: Result<Response, any Error>) in
            guard !call.isFinished else {
                return
            }
            if !isReplay, case .success(let response) = outcome, self.authenticator.isRejection(response) {
                self.refresh(after: generation) { refreshed in
                    switch refreshed {
                    case .success:
                        self.send(request, isReplay: true, errorParser: errorParser, call: call, deliver: deliver)
                    case .failure(let error):
                        if call.finish() {
                            deliver(.failure(FetchError.credentialRefreshFailed(error, response.answering(request))))
                        }
                    }
                }
                return
            }
            if call.finish() {
                deliver(outcome.flatMap { T.parse(response: $0.answering(request), errorParser: errorParser) })
            }
        }
        call.track(step)
    }

    /// Calls `completion` once credentials newer than `generation` are in place: at once if a refresh has finished
    /// since, after the refresh in flight, or after a new refresh that this call starts.
    private func refresh(after generation: Int, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        enum Next {
            case replayNow
            case wait
            case startRefresh
        }
        let next = state.withLock { state -> Next in
            if state.generation > generation {
                return .replayNow
            }
            if state.waiting != nil {
                state.waiting?.append(completion)
                return .wait
            }
            state.waiting = [completion]
            return .startRefresh
        }
        switch next {
        case .replayNow:
            completion(.success(()))
        case .wait:
            break
        case .startRefresh:
            authenticator.refresh { result in
                let waiting = self.state.withLock { state in
                    if case .success = result {
                        state.generation += 1
                    }
                    defer { state.waiting = nil }
                    return state.waiting ?? []
                }
                for waiter in waiting {
                    waiter(result)
                }
            }
        }
    }
}

// MARK: - CallbackQueueProviding

extension AuthenticatingPerformer: CallbackQueueProviding {
    package var deliveryQueue: OperationQueue? {
        (performer as? any CallbackQueueProviding)?.deliveryQueue
    }
}
