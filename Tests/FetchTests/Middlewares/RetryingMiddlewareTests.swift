import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A MockPerformer that answers each request with the next of `answers` (the last one repeats), counting calls.
func sequence(_ answers: [Result<MockResponse, any Error>]) -> (MockPerformer, Locked<Int>) {
    let calls = Locked(0)
    let mock = MockPerformer { _ in
        let index = calls.withLock { count in
            count += 1
            return count - 1
        }
        return try answers[min(index, answers.count - 1)].get()
    }
    return (mock, calls)
}

@Suite struct RetryingMiddlewareTests {
    let request = TestRequest("https://api.example.com/users/1")
    let ada = MockResponse.json(#"{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}"#)

    @Test func retriesUntilSuccessWithBackoffSynchronously() throws {
        let (mock, calls) = sequence([
            .success(MockResponse(status: 503)), .success(MockResponse(status: 502)), .success(ada),
        ])
        let scheduler = TestScheduler()
        let user = Captured<Result<User, any Error>>()
        mock.with(.retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: scheduler)).perform(
            request, completion: user.capture)
        #expect(try user.value?.get().name == "Ada")
        #expect(calls.withLock { $0 } == 3)
        #expect(scheduler.delays == [0.5, 1])
    }

    @Test func theFinalErrorSaysHowManyAttemptsWereMade() throws {
        let (mock, calls) = sequence([.success(MockResponse(status: 503))])
        let user = Captured<Result<User, any Error>>()
        mock.with(.retry(RetryPolicy(maximumAttempts: 4), scheduler: TestScheduler())).perform(
            request, completion: user.capture)
        let error = try fetchError(user.value)
        guard case .attemptsExhausted(let attempts, let last, _) = error.fetchKind,
            case .unacceptableStatus(let response) = last.fetchKind
        else {
            Issue.record("expected .attemptsExhausted(4, .unacceptableStatus), got \(error)")
            return
        }
        #expect(attempts == 4)
        #expect(response.status == 503)
        #expect(error.response?.status == 503)
        #expect(
            error.description.hasPrefix(
                "GET https://api.example.com/users/1: gave up after 4 attempts; the last one failed: GET"
                    + " https://api.example.com/users/1 → 503 Service Unavailable"
            ))
        #expect(calls.withLock { $0 } == 4)
    }

    @Test func aPOSTIsSentOnceAndItsErrorDeliveredUnchanged() throws {
        let (mock, calls) = sequence([.success(MockResponse(status: 503))])
        let result = Captured<Result<Data, any Error>>()
        mock.with(.retry(scheduler: TestScheduler())).perform(
            TestRequest("https://api.example.com/orders", method: .post), completion: result.capture)
        guard case .unacceptableStatus = try fetchError(result.value).fetchKind else {
            Issue.record("expected .unacceptableStatus, got \(String(describing: result.value))")
            return
        }
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func theErrorParserReadsTheFinalErrorBody() throws {
        let (mock, _) = sequence([.success(.json(#"{"error": true, "reason": "busy"}"#, status: 503))])
        let result = Captured<Result<User, any Error>>()
        mock.with(.retry(RetryPolicy(maximumAttempts: 2), scheduler: TestScheduler()))
            .perform(request, errorParser: DecodableErrorParser<APIError>(), completion: result.capture)
        guard case .attemptsExhausted(2, let last, _) = try fetchError(result.value).fetchKind else {
            Issue.record("expected .attemptsExhausted, got \(String(describing: result.value))")
            return
        }
        #expect(last as? APIError == APIError(error: true, reason: "busy"))
    }

    @Test func retryAfterSetsTheWait() throws {
        let (mock, _) = sequence([.success(MockResponse(status: 429, headers: ["Retry-After": "7"])), .success(ada)])
        let scheduler = TestScheduler()
        let user = Captured<Result<User, any Error>>()
        mock.with(.retry(scheduler: scheduler)).perform(request, completion: user.capture)
        #expect(try user.value?.get().id == 1)
        #expect(scheduler.delays == [7])
    }

    @Test func transportFailuresAreRetriedAndTimeoutsToo() throws {
        let (mock, calls) = sequence([
            .failure(URLError(.networkConnectionLost)), .failure(URLError(.timedOut)), .success(ada),
        ])
        let user = Captured<Result<User, any Error>>()
        mock.with(.retry(scheduler: TestScheduler())).perform(request, completion: user.capture)
        #expect(try user.value?.get().id == 1)
        #expect(calls.withLock { $0 } == 3)
    }

    @Test func cancellingDuringTheWaitCompletesOnceAndSendsNothingMore() throws {
        let (mock, calls) = sequence([.success(MockResponse(status: 503)), .success(ada)])
        let scheduler = TestScheduler(runsImmediately: false)
        let user = Captured<Result<User, any Error>>()
        let call = mock.with(.retry(scheduler: scheduler)).perform(request, completion: user.capture)
        #expect(user.values.isEmpty)
        call.cancel()
        scheduler.advance(by: 60)
        #expect(user.values.count == 1)
        guard case .cancelled = try fetchError(user.value).fetchKind else {
            Issue.record("expected .cancelled, got \(String(describing: user.value))")
            return
        }
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func theDeadlineEndsTheCallAcrossAttempts() throws {
        let spy = SpyPerformer()
        let scheduler = TestScheduler(runsImmediately: false)
        let user = Captured<Result<User, any Error>>()
        spy.with(.retry(RetryPolicy(backoff: Backoff(initialDelay: 2, jitter: 0), deadline: 5), scheduler: scheduler))
            .perform(
                request, completion: user.capture)
        spy.complete(with: MockResponse(status: 503))
        scheduler.advance(by: 2)
        #expect(spy.calls.count == 2)
        scheduler.advance(by: 3)
        #expect(spy.calls.last?.isCancelled == true)
        guard case .attemptsExhausted(2, let last, _) = try fetchError(user.value).kind, case .timedOut = last.fetchKind
        else {
            Issue.record("expected .attemptsExhausted(2, .timedOut), got \(String(describing: user.value))")
            return
        }
        #expect(user.values.count == 1)
    }

    @Test func eachRetryIsReportedAsAnEvent() throws {
        let (mock, _) = sequence([.success(MockResponse(status: 503)), .success(ada)])
        let events = Captured<FetchEvent>()
        let user = Captured<Result<User, any Error>>()
        let observed = mock.with(
            .observe { event in
                if event.name == .retrying {
                    events.capture(event)
                }
            },
            .retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: TestScheduler()))
        observed.perform(request, completion: user.capture)
        #expect(
            events.values.map(\.description) == [
                "GET https://api.example.com/users/1 failed (503 Service Unavailable); attempt 2 in 500.0 ms"
            ])
    }
}

/// `.retry()` over a `Session` against the loopback server, which counts the requests it receives.
@Suite struct RetryingSessionTests {
    let server: TestServer
    let performer: Pipeline

    init() throws {
        server = try TestServer.running()
        performer = makeSession().with(.retry(RetryPolicy(backoff: Backoff(initialDelay: 0.05, jitter: 0))))
    }

    struct Attempt: Decodable, Parsable {
        let attempt: Int
    }

    @Test func retriesA503UntilItSucceeds() async throws {
        let path = "/flaky/\(UUID().uuidString)"
        let answer: Attempt = try await performer.perform(TestRequest(server.url(path + "?fail=2")))
        #expect(answer.attempt == 3)
        #expect(try await server.hits(path) == 3)
    }

    @Test func waitsAsLongAsRetryAfterSays() async throws {
        let path = "/flaky/\(UUID().uuidString)"
        let started = ContinuousClock.now
        let answer: Attempt = try await performer.perform(
            TestRequest(server.url(path + "?fail=1&status=429&retry_after=1")))
        #expect(answer.attempt == 2)
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(try await server.hits(path) == 2)
    }

    @Test func doesNotRetryAPOST() async throws {
        let path = "/flaky/\(UUID().uuidString)"
        await #expect(throws: FetchError.self) {
            let _: Attempt = try await performer.perform(TestRequest(server.url(path + "?fail=1"), method: .post))
        }
        #expect(try await server.hits(path) == 1)
    }

    @Test func retriesADroppedConnection() async throws {
        let path = "/drop/\(UUID().uuidString)"
        let answer: Attempt = try await performer.perform(TestRequest(server.url(path + "?times=1")))
        #expect(answer.attempt == 2)
        #expect(try await server.hits(path) == 2)
    }

    @Test func everyCompletionIsCalledExactlyOnceWhenCancelRacesRetries() async throws {
        let calls = 100
        let counts = Locked([Int](repeating: 0, count: calls))
        let finished = Captured<Int>()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<calls {
                group.addTask {
                    let url = server.url("/flaky/\(UUID().uuidString)?fail=1")
                    let call = performer.perform(TestRequest(url)) { (_: Result<Data, any Error>) in
                        counts.withLock { $0[index] += 1 }
                        finished.capture(index)
                    }
                    try? await Task.sleep(for: .microseconds(Int.random(in: 0...80_000)))
                    call.cancel()
                }
            }
        }
        _ = try await finished.wait(for: calls, timeout: 60)
        try await Task.sleep(for: .milliseconds(200))  // room for a wrong second completion to show up
        #expect(counts.withLock { $0 }.allSatisfy { $0 == 1 })
    }
}
