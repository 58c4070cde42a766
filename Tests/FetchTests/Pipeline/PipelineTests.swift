import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the pipeline promises every middleware, checked synchronously over the FetchTesting doubles.
@Suite struct PipelineTests {
    struct Item: Decodable, Parsable, Equatable {
        let id: Int
    }

    let request = TestRequest("http://example.test/items/1")

    @Test func aMiddlewareCanAnswerWithoutCallingNext() throws {
        let spy = SpyPerformer(forwardingTo: MockPerformer { _ in MockResponse(status: 500) })
        let stack = spy.with(
            .intercept { request, _, _, completion in
                completion(.success(Response(status: 200, data: Data(#"{"id":7}"#.utf8), originalRequest: request)))
            })
        let result = Captured<Result<Item, any Error>>()
        stack.perform(request, completion: result.capture)
        #expect(try result.value?.get() == Item(id: 7))
        #expect(spy.calls.isEmpty)
    }

    @Test func aMiddlewareThatAnswersTwiceIsHeardOnce() throws {
        let stack = MockPerformer { _ in .json(#"{"id":1}"#) }.with(
            .intercept { request, _, next, completion in
                next(request, completion: completion)
                completion(.failure(FetchError.timedOut()))
            })
        let results = Captured<Result<Item, any Error>>()
        stack.perform(request, completion: results.capture)
        #expect(results.values.count == 1)
        #expect(try results.value?.get() == Item(id: 1))
    }

    @Test func aMiddlewareCanCallNextMoreThanOnce() throws {
        let spy = SpyPerformer(forwardingTo: MockPerformer { _ in .json(#"{"id":1}"#) })
        let stack = spy.with(
            .intercept { request, _, next, completion in
                next(request) { _ in next(request, completion: completion) }
            })
        let result = Captured<Result<Item, any Error>>()
        stack.perform(request, completion: result.capture)
        #expect(try result.value?.get() == Item(id: 1))
        #expect(spy.calls.count == 2)
    }

    @Test func changedRequestsGoOnButTheCallerGetsAnAnswerToItsOwn() throws {
        let spy = SpyPerformer(forwardingTo: MockPerformer { _ in MockResponse(status: 200, data: Data("ok".utf8)) })
        let stack = spy.with(
            .intercept { request, _, next, completion in
                var signed = AdaptedRequest(request)
                signed.headers["X-Signed"] = "yes"
                next(signed, completion: completion)
            })
        let result = Captured<Result<Response, any Error>>()
        stack.perform(request, completion: result.capture)
        #expect(spy.requests.first?.headers["X-Signed"] == "yes")
        #expect(try result.value?.get().originalRequest.url == request.url)
        #expect(try result.value?.get().originalRequest is TestRequest)
    }

    @Test func cancellingTheCallCancelsWhatNextStartedAndReportsCancelledOnce() throws {
        let spy = SpyPerformer()
        let stack = spy.with(.intercept { request, _, next, completion in next(request, completion: completion) })
        let results = Captured<Result<Item, any Error>>()
        let call = stack.perform(request, completion: results.capture)
        #expect(spy.pendingCalls.count == 1)
        call.cancel()
        call.cancel()
        spy.complete(with: MockResponse(status: 200, data: Data(#"{"id":1}"#.utf8)))
        #expect(spy.calls.first?.isCancelled == true)
        #expect(results.values.count == 1)
        guard case .cancelled = try fetchError(results.value).fetchKind else {
            Issue.record("expected .cancelled, got \(String(describing: results.value))")
            return
        }
    }

    @Test func nextAfterACancellationSendsNothing() throws {
        let spy = SpyPerformer(forwardingTo: MockPerformer { _ in MockResponse(status: 200) })
        let later = Locked<(@Sendable () -> Void)?>(nil)
        let inner = Captured<Result<Response, any Error>>()
        let stack = spy.with(
            .intercept { request, context, next, completion in
                later.withLock { $0 = { next(request, completion: inner.capture) } }
                context.onCancel { completion(.failure(FetchError.cancelled())) }
            })
        let results = Captured<Result<Response, any Error>>()
        stack.perform(request, completion: results.capture).cancel()
        later.withLock { $0 }?()
        #expect(spy.calls.isEmpty)
        guard case .cancelled = try fetchError(inner.value).fetchKind else {
            Issue.record("expected next to answer .cancelled, got \(String(describing: inner.value))")
            return
        }
    }

    @Test func theHandleNextReturnsCancelsThatUseAlone() throws {
        let spy = SpyPerformer()
        let stack = spy.with(
            .intercept { request, _, next, completion in
                let first = next(request) { _ in }
                first.cancel()
                next(request, completion: completion)
            })
        let result = Captured<Result<Item, any Error>>()
        stack.perform(request, completion: result.capture)
        #expect(spy.calls.map(\.isCancelled) == [true, false])
        spy.complete(with: MockResponse(status: 200, data: Data(#"{"id":3}"#.utf8)))
        #expect(try result.value?.get() == Item(id: 3))
    }

    @Test func aDetachedCallOutlivesTheCallThatStartedIt() throws {
        let spy = SpyPerformer()
        let shared = Captured<Result<Response, any Error>>()
        let stack = spy.with(
            .intercept { request, _, next, _ in
                _ = next.detached(request, completion: shared.capture)
            })
        let results = Captured<Result<Response, any Error>>()
        stack.perform(request, completion: results.capture).cancel()
        #expect(spy.calls.first?.isCancelled == false)
        spy.complete(with: MockResponse(status: 204))
        #expect(try shared.value?.get().status == 204)
    }

    @Test func eventsReachEveryObserverOfTheCall() throws {
        let seen = Captured<String>()
        let stack = MockPerformer { _ in MockResponse(status: 200) }
            .with(
                .intercept { request, context, next, completion in
                    context.report(.retrying(request, attempt: 2, delay: 0, reason: "custom"))
                    next(request, completion: completion)
                }
            )
            .with(.observe { seen.capture("\($0)") })
        let result = Captured<Result<Response, any Error>>()
        stack.perform(request, completion: result.capture)
        // started, the custom event, the attempt's start and finish, finished.
        #expect(seen.values.count == 5)
        #expect(seen.values[1].contains("custom"))
    }

    @Test(arguments: [true, false])
    func observersSeeRetriesWhateverTheOrder(observerOutside: Bool) throws {
        let seen = Captured<FetchEvent>()
        let answers = Locked([503, 200])
        let mock = MockPerformer { _ in MockResponse(status: answers.withLock { $0.removeFirst() }) }
        let policy = RetryPolicy(maximumAttempts: 2, backoff: Backoff(initialDelay: 0, jitter: 0))
        let stack: any RequestPerforming =
            observerOutside
            ? mock.with(.retry(policy, scheduler: TestScheduler())).with(.observe(seen.capture))
            : mock.with(.observe(seen.capture)).with(.retry(policy, scheduler: TestScheduler()))
        let result = Captured<Result<Response, any Error>>()
        stack.perform(request, completion: result.capture)
        #expect(try result.value?.get().status == 200)
        let kinds = seen.values.map { event -> String in
            switch event.name {
            case .started: "started"
            case .retrying: "retrying"
            case .finished: event.status.map(String.init) ?? "finished"
            case .failed: "failed"
            default: "\(event.name)"
            }
        }
        #expect(
            kinds
                == (observerOutside
                    ? [
                        "started", "attemptStarted", "attemptFinished", "retrying", "attemptStarted",
                        "attemptFinished", "200",
                    ]
                    : [
                        "started", "attemptStarted", "attemptFinished", "503", "retrying", "started",
                        "attemptStarted", "attemptFinished", "200",
                    ]))
    }

    @Test func overTheDoublesEverythingHappensBeforePerformReturns() throws {
        let stack = MockPerformer { _ in .json(#"{"id":1}"#) }
            .with(.retry(scheduler: TestScheduler()))
            .with(.authenticate(with: BearerAuthenticator(token: "t") { $0(.success("u")) }))
            .with(.deduplicate())
            .with(.cache(ResponseCache()))
            .with(.observe { _ in })
        let result = Captured<Result<Item, any Error>>()
        stack.perform(request, completion: result.capture)
        // Captured before perform returned: on this thread, with no queue in between.
        #expect(try result.value?.get() == Item(id: 1))
    }
}
