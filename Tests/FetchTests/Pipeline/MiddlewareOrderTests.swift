import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Built-in middlewares are values like a user's own: they go into `Pipeline(transport, middlewares:)` and
/// `with(…)` in any order, outermost first, and that order decides what each one sees.
@Suite struct MiddlewareOrderTests {
    let request = TestRequest("https://api.example.com/users/1")

    /// A user's middleware that stamps each request it passes on with how many it has passed.
    final class Stamp: Middleware {
        let passed = Locked(0)

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            let count = passed.withLock { count in
                count += 1
                return count
            }
            var stamped = AdaptedRequest(request)
            stamped.headers["X-Stamp"] = "\(count)"
            next(stamped, completion: completion)
        }
    }

    /// The events an observer saw, as short words: `started`, `retrying`, or the status it finished with.
    static func words(_ events: [FetchEvent]) -> [String] {
        events.map { event in
            switch event.name {
            case .started: "started"
            case .retrying: "retrying"
            case .finished: event.status.map(String.init) ?? "finished"
            case .failed: "failed"
            default: "\(event.name)"
            }
        }
    }

    @Test func anObserverOutsideARetrySeesOneCallAndOneInsideSeesEveryAttempt() throws {
        let stamps = Captured<String>()
        let mock = MockPerformer { request in
            let stamp = try request.makeURLRequest().value(forHTTPHeaderField: "X-Stamp") ?? "none"
            stamps.capture(stamp)
            return MockResponse(status: stamp == "1" ? 503 : 200)
        }
        let outside = Captured<FetchEvent>()
        let inside = Captured<FetchEvent>()
        let stamp = Stamp()
        let pipeline = Pipeline(
            mock.pipeline.transport,
            middlewares: [
                .observe(outside.capture),
                .retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: TestScheduler()),
                stamp,
                .observe(inside.capture),
            ])
        let result = Captured<Result<Response, any Error>>()
        pipeline.perform(request, completion: result.capture)

        #expect(try result.value?.get().status == 200)
        // Outside the retry: one call, its wait, its end.
        #expect(
            Self.words(outside.values) == [
                "started", "attemptStarted", "attemptFinished", "retrying", "attemptStarted", "attemptFinished", "200",
            ])
        // Inside: every attempt, each stamped afresh by the user's middleware between the two.
        // The attempts' events reach both observers of the call once, where they happen.
        #expect(
            Self.words(inside.values) == [
                "started", "attemptStarted", "attemptFinished", "503", "retrying", "started", "attemptStarted",
                "attemptFinished", "200",
            ])
        #expect(stamps.values == ["1", "2"])
        #expect(stamp.passed.withLock { $0 } == 2)
    }

    @Test func withTakesSeveralMiddlewaresOutermostFirstAsAPipelineDoes() throws {
        let (mock, calls) = sequence([.success(MockResponse(status: 503)), .success(MockResponse(status: 200))])
        let outside = Captured<FetchEvent>()
        let inside = Captured<FetchEvent>()
        let api = mock.with(
            .observe(outside.capture),
            .retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: TestScheduler()),
            .observe(inside.capture))
        let result = Captured<Result<Response, any Error>>()
        api.perform(request, completion: result.capture)

        #expect(try result.value?.get().status == 200)
        #expect(calls.withLock { $0 } == 2)
        #expect(
            Self.words(outside.values) == [
                "started", "attemptStarted", "attemptFinished", "retrying", "attemptStarted", "attemptFinished", "200",
            ])
        // The attempts' events reach both observers of the call once, where they happen.
        #expect(
            Self.words(inside.values) == [
                "started", "attemptStarted", "attemptFinished", "503", "retrying", "started", "attemptStarted",
                "attemptFinished", "200",
            ])
        #expect(api.middlewares.count == 3)
        #expect(api.middlewares.first is ObservingMiddleware)
        #expect(api.middlewares.dropFirst().first is RetryingMiddleware)
    }

    /// Observers at the head of a stack are run by the pipeline without a step of their own: they must hear what an
    /// observer behind another middleware hears, in the same order, for answers, failures and cancellations alike.
    @Test(arguments: ["answered", "failed", "cancelled", "cancelledBeforeStart"])
    func observersAtTheHeadHearWhatAnObserverBehindAnotherMiddlewareHears(ending: String) async throws {
        func words(of middlewares: [any Middleware], observers: [Captured<FetchEvent>]) async throws -> [[String]] {
            let spy = SpyPerformer()
            let pipeline = Pipeline(spy.pipeline.transport, middlewares: middlewares)
            let result = Captured<Result<Response, any Error>>()
            if ending == "cancelledBeforeStart" {
                let task = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await pipeline.perform(request) as Response
                }
                _ = await task.result
                #expect(spy.calls.isEmpty)
            } else {
                let call = pipeline.perform(request, completion: result.capture)
                let sent = try await spy.nextCall()
                switch ending {
                case "answered": sent.complete(with: MockResponse(status: 201))
                case "failed": sent.fail(with: URLError(.networkConnectionLost))
                default: call.cancel()
                }
                #expect(result.values.count == 1)
            }
            return observers.map { Self.words($0.values) }
        }
        let first = Captured<FetchEvent>()
        let second = Captured<FetchEvent>()
        let atTheHead = try await words(
            of: [.observe(first.capture), .observe(second.capture)], observers: [first, second])
        let behind = [Captured<FetchEvent>(), Captured<FetchEvent>()]
        let passThrough = InterceptingMiddleware.intercept { request, _, next, completion in
            next(request, completion: completion)
        }
        let behindAnother = try await words(
            of: [passThrough, .observe(behind[0].capture), .observe(behind[1].capture)], observers: behind)

        #expect(atTheHead == behindAnother)
        let expected: [String] =
            switch ending {
            case "answered": ["started", "attemptStarted", "attemptFinished", "201"]
            case "failed": ["started", "attemptStarted", "attemptFinished", "failed"]
            case "cancelled": ["started", "attemptStarted", "attemptFinished", "failed"]
            default: []
            }
        #expect(atTheHead == [expected, expected])
        if ending == "cancelled" {
            // The cancellation reaches the observers, inner first, before the caller hears it.
            #expect(first.values.last?.error.map { "\($0)" }?.contains("cancelled") == true)
        }
    }

    @Test func aCacheOutsideDeduplicationAnswersTheSecondCallFromMemory() async throws {
        let (mock, calls) = sequence([.success(MockResponse(status: 200, headers: ["Cache-Control": "max-age=86400"]))])
        let cache = ResponseCache()
        let api = Pipeline(mock.pipeline.transport, middlewares: [.cache(cache), .deduplicate()])
        let first: Response = try await api.perform(request)
        let second: Response = try await api.perform(request)
        #expect(first.status == 200 && second.status == 200)
        #expect(calls.withLock { $0 } == 1)
        #expect(cache.storedResponseCount == 1)
        cache.removeAll()
        #expect(cache.storedResponseCount == 0)
    }
}
