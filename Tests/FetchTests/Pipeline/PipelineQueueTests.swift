import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every stack of middlewares over a `Session` delivers callback-form results on the session's callback queue, and
/// the `async` forms never touch it; against the loopback test server.
@Suite struct PipelineQueueTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// One of the six built-ins, or a middleware a user writes.
    enum Layer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case adapting, authenticating, retrying, observing, caching, deduplicating, userMiddleware

        var testDescription: String { rawValue }

        func wrap(_ performer: any RequestPerforming) -> any RequestPerforming {
            switch self {
            case .adapting:
                performer.with(.header("X-Layer", "adapting"))
            case .authenticating:
                performer.with(.authenticate(with: BearerAuthenticator(token: "t0k3n") { $0(.success("fresh")) }))
            case .retrying:
                performer.with(.retry(RetryPolicy(maximumAttempts: 2)))
            case .observing:
                performer.with(.observe { _ in })
            case .caching:
                performer.with(.cache(ResponseCache()))
            case .deduplicating:
                performer.with(.deduplicate())
            case .userMiddleware:
                performer.with(HopThroughAnotherQueue())
            }
        }
    }

    /// A user's middleware that answers from a queue of its own, as a metrics or signing middleware that does
    /// asynchronous work might.
    struct HopThroughAnotherQueue: Middleware {
        static let queue = DispatchQueue(label: "PipelineQueueTests.user-middleware")

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            Self.queue.async {
                next(request) { result in
                    Self.queue.async { completion(result) }
                }
            }
        }
    }

    private func makeQueue(_ name: String) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// Every layer over every other, outer first.
    static let layerPairs = Layer.allCases.flatMap { outer in Layer.allCases.map { inner in LayerPair(outer, inner) } }

    struct LayerPair: Sendable, CustomTestStringConvertible {
        let outer: Layer
        let inner: Layer

        init(_ outer: Layer, _ inner: Layer) {
            self.outer = outer
            self.inner = inner
        }

        var testDescription: String { "\(outer) over \(inner)" }
    }

    @Test(arguments: SessionTransport.allCases, layerPairs)
    func callbackResultsArriveOnTheSessionsQueue(on transport: SessionTransport, layers: LayerPair) async throws {
        let (outer, inner) = (layers.outer, layers.inner)
        let queue = makeQueue("callbacks-\(outer)-\(inner)")
        let stack = outer.wrap(inner.wrap(try makeSession(transport, callbackQueue: queue)))
        let onQueue = Captured<(Bool, Result<User, any Error>)>()
        stack.perform(TestRequest(server.url("/users/1"))) { (result: Result<User, any Error>) in
            onQueue.capture((OperationQueue.current === queue, result))
        }
        let (wasOnQueue, result) = try await onQueue.first()
        #expect(try result.get().id == 1)
        #expect(wasOnQueue, "\(outer) over \(inner) completed off the session's callback queue")
    }

    @Test(arguments: SessionTransport.allCases, layerPairs)
    func asyncResultsArriveWhileTheQueueIsSuspended(on transport: SessionTransport, layers: LayerPair) async throws {
        let (outer, inner) = (layers.outer, layers.inner)
        let queue = makeQueue("suspended-\(outer)-\(inner)")
        let stack = outer.wrap(inner.wrap(try makeSession(transport, callbackQueue: queue)))
        queue.isSuspended = true
        defer { queue.isSuspended = false }
        let user: User = try await stack.perform(TestRequest(server.url("/users/2")))
        #expect(user.id == 2)
    }

    @Test(arguments: SessionTransport.allCases)
    func cancellationIsDeliveredOnTheSessionsQueueToo(on transport: SessionTransport) async throws {
        let queue = makeQueue("cancelled")
        let stack = try makeSession(transport, callbackQueue: queue).with(.retry()).with(HopThroughAnotherQueue()).with(
            .observe { _ in })
        let onQueue = Captured<(Bool, Result<Data, any Error>)>()
        let call = stack.perform(TestRequest(server.url("/delay/3000"))) { (result: Result<Data, any Error>) in
            onQueue.capture((OperationQueue.current === queue, result))
        }
        call.cancel()
        let (wasOnQueue, result) = try await onQueue.first()
        #expect(wasOnQueue)
        guard case .cancelled = try fetchError(result).fetchKind else {
            Issue.record("expected .cancelled, got \(result)")
            return
        }
    }
}
