import Fetch
import Foundation

/// A `RequestPerforming` double that records every request it is asked to perform, in order.
///
/// On its own, a spy holds each call pending until the test completes it with ``complete(with:)`` or
/// ``fail(with:)``, so a test can check what was sent and then decide what came back:
///
/// ```swift
/// let spy = SpyPerformer()
/// UserAPI(performer: spy).loadUser(id: 7) { _ in }
/// #expect(spy.requests.last?.url.path == "/users/7")
/// ```
///
/// Made with ``init(forwardingTo:)``, it passes each call on to another performer (a ``MockPerformer``, say) and
/// only records.
///
/// Thread-safe: calls may arrive from any thread.
public final class SpyPerformer: RequestPerforming {
    /// The spy's pipeline: a pending spy's is a transport that holds each call; a forwarding spy's is the other
    /// performer's, behind a middleware that records each call.
    public let pipeline: Pipeline

    private let recorded: Recorder

    /// Creates a spy that holds every call pending until the test completes it.
    public init() {
        let recorded = Recorder()
        self.recorded = recorded
        self.pipeline = Pipeline(PendingTransport(recorder: recorded))
    }

    /// Creates a spy that records each call and passes it on to `performer`.
    ///
    /// - Parameter performer: The performer that answers, for example a ``MockPerformer``.
    public init(forwardingTo performer: any RequestPerforming) {
        let recorded = Recorder()
        self.recorded = recorded
        self.pipeline = performer.pipeline.with(RecordingMiddleware(recorder: recorded))
    }

    /// Every call made so far, in order: each can be finished (``Call/complete(with:)``, ``Call/fail(with:)``) or
    /// cancelled on its own.
    public var calls: [Call] {
        recorded.calls.withLock { $0 }
    }

    /// Every request asked for so far, in order.
    public var requests: [any Request] {
        calls.map(\.request)
    }

    /// The calls that are still waiting for an answer.
    package var pendingCalls: [Call] {
        calls.filter(\.isPending)
    }

    /// Waits for the next call this spy receives, made from any task or thread, and returns it.
    ///
    /// Each `nextCall` returns the first call that no earlier `nextCall` returned, in the order the calls were
    /// made, so a call that arrived before the test began to wait is not missed:
    ///
    /// ```swift
    /// let spy = SpyPerformer()
    /// Task { try await UserAPI(performer: spy).user(id: 7) }
    /// let call = try await spy.nextCall()
    /// #expect(call.request.url.path == "/users/7")
    /// call.complete(with: .json(#"{"id": 7, "name": "Ada"}"#))
    /// ```
    ///
    /// - Parameter timeout: The longest wait. The default is 15 seconds.
    /// - Returns: The call.
    /// - Throws: ``CaptureTimeout`` when no new call arrives in time.
    public func nextCall(timeout: TimeInterval = 15) async throws -> Call {
        let index = recorded.cursor.withLock { cursor in
            defer { cursor += 1 }
            return cursor
        }
        do {
            let calls = try await recorded.arrivals.wait(for: index + 1, timeout: timeout)
            return calls[index]
        } catch {
            // Give the place back, so that the next wait returns the call this one did not get.
            recorded.cursor.withLock { cursor in
                if cursor == index + 1 {
                    cursor = index
                }
            }
            throw error
        }
    }

    /// Records the call and forwards it, or holds it pending when the spy forwards to no performer.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once: by the performer forwarded to, or when the test completes or cancels
    ///     the call.
    /// - Returns: A handle that cancels the call; the recorded ``Call`` records the cancellation.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }

    /// Completes every pending call, in the order they were made, with `response`.
    ///
    /// - Parameter response: The answer, parsed as `Session` would parse it.
    public func complete(with response: MockResponse) {
        for call in pendingCalls {
            call.complete(with: response)
        }
    }

    /// Fails every pending call, in the order they were made, as a transport failure would.
    ///
    /// - Parameter error: The failure; a `URLError` arrives as the `FetchError` that `Session` would deliver.
    public func fail(with error: any Error) {
        for call in pendingCalls {
            call.fail(with: error)
        }
    }
}

extension SpyPerformer {
    /// One call recorded by a ``SpyPerformer``: its request, and whether it was cancelled or answered.
    public final class Call: CancellableCall {
        private enum State {
            case pending
            case forwarded(any CancellableCall)
            case finished
        }

        /// The request of this call.
        public let request: any Request

        private let answer: @Sendable (Result<MockResponse, any Error>) -> Void
        private let state = Locked((state: State.pending, isCancelled: false))

        init(request: any Request, answer: @escaping @Sendable (Result<MockResponse, any Error>) -> Void) {
            self.request = request
            self.answer = answer
        }

        /// Whether `cancel()` was called on this call, whether or not it had finished.
        public var isCancelled: Bool {
            state.withLock { $0.isCancelled }
        }

        /// Whether the call waits for the test to complete it.
        package var isPending: Bool {
            state.withLock { call in
                if case .pending = call.state {
                    return true
                }
                return false
            }
        }

        /// Records the cancellation and cancels the call: a pending call completes with `FetchError.cancelled`;
        /// a forwarded call is cancelled at the performer it was forwarded to.
        public func cancel() {
            let previous = state.withLock { call in
                call.isCancelled = true
                defer {
                    if case .pending = call.state {
                        call.state = .finished
                    }
                }
                return call.state
            }
            switch previous {
            case .pending: answer(.failure(FetchError.cancelled()))
            case .forwarded(let cancellable): cancellable.cancel()
            case .finished: break
            }
        }

        /// Completes the call with `response` if it is pending; does nothing otherwise.
        ///
        /// - Parameter response: The answer, parsed as `Session` would parse it.
        public func complete(with response: MockResponse) {
            finish(with: .success(response))
        }

        /// Fails the call as a transport failure would, if it is pending; does nothing otherwise.
        ///
        /// - Parameter error: The failure.
        public func fail(with error: any Error) {
            finish(with: .failure(error))
        }

        func forward(_ cancellable: any CancellableCall) {
            state.withLock { call in
                if case .pending = call.state {
                    call.state = .forwarded(cancellable)
                }
            }
        }

        private func finish(with result: Result<MockResponse, any Error>) {
            let wasPending = state.withLock { call in
                guard case .pending = call.state else {
                    return false
                }
                call.state = .finished
                return true
            }
            if wasPending {
                answer(result)
            }
        }
    }
}

/// The calls a ``SpyPerformer`` has recorded, shared with its transport or middleware.
private final class Recorder: Sendable {
    let calls = Locked([SpyPerformer.Call]())

    /// The same calls, for the tests that wait for them.
    let arrivals = Captured<SpyPerformer.Call>()

    /// The index of the call the next ``SpyPerformer/nextCall(timeout:)`` returns.
    let cursor = Locked(0)

    func record(_ call: SpyPerformer.Call) {
        calls.withLock { $0.append(call) }
        arrivals.capture(call)
    }
}

/// The transport of a spy that forwards nowhere: each call waits for the test to complete it.
private struct PendingTransport: Transport {
    let recorder: Recorder

    func send(
        _ request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        // A request that cannot be built is never sent, as with `Session`: it fails at once and is not recorded.
        if case .failure(let error) = Exchange.makeURLRequest(for: request, defaultTimeout: nil) {
            completion(.failure(error))
            return CompletedCall()
        }
        let call = SpyPerformer.Call(request: request) { answer in
            completion(MockExchange.response(for: request) { _ in try answer.get() })
        }
        recorder.record(call)
        return call
    }
}

/// Records each call on its way to the performer a spy forwards to.
private struct RecordingMiddleware: Middleware {
    let recorder: Recorder

    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        if case .failure(let error) = Exchange.makeURLRequest(for: request, defaultTimeout: nil) {
            completion(.failure(error))
            return
        }
        let call = SpyPerformer.Call(request: request) { _ in }
        recorder.record(call)
        call.forward(next(request, completion: completion))
        context.onCancel { call.cancel() }
    }
}
