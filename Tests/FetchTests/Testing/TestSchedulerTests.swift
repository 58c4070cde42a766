import Fetch
import FetchTesting
import Foundation
import Testing

@Suite struct TestSchedulerTests {
    @Test func runsWorkAtOnceAndMovesTheClock() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        let ran = Locked(false)
        scheduler.schedule(after: 2.5) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
        #expect(scheduler.now.timeIntervalSince(start) == 2.5)
        #expect(scheduler.delays == [2.5])
    }

    @Test func inManualModeRunsWorkWhenTheClockPassesItInOrder() {
        let scheduler = TestScheduler(runsImmediately: false)
        let order = Locked([String]())
        scheduler.schedule(after: 3) { order.withLock { $0.append("three") } }
        scheduler.schedule(after: 1) { order.withLock { $0.append("one") } }
        let cancelled = scheduler.schedule(after: 2) { order.withLock { $0.append("two") } }
        cancelled.cancel()
        scheduler.advance(by: 1.5)
        #expect(order.withLock { $0 } == ["one"])
        scheduler.advance(by: 5)
        #expect(order.withLock { $0 } == ["one", "three"])
    }

    @Test func dispatchSchedulerRunsWorkLaterAndCanCancelIt() async throws {
        let scheduler = DispatchScheduler()
        let ran = Captured<String>()
        scheduler.schedule(after: 0.01) { ran.capture("ran") }
        scheduler.schedule(after: 0.02) { ran.capture("cancelled work ran") }.cancel()
        #expect(try await ran.first() == "ran")
        try await Task.sleep(for: .milliseconds(50))  // room for the cancelled work to show up if cancel failed
        #expect(ran.values == ["ran"])
    }
}

@Suite struct TestSchedulerTimeoutTests {
    @Test func timeoutsFireOnlyWhenWaitsCarryTheClockPastThem() {
        let scheduler = TestScheduler()
        let fired = Locked([String]())
        scheduler.scheduleTimeout(after: 5) { fired.withLock { $0.append("timeout") } }
        #expect(fired.withLock { $0 }.isEmpty)
        scheduler.schedule(after: 2) { fired.withLock { $0.append("wait 2") } }
        scheduler.schedule(after: 4) { fired.withLock { $0.append("wait 4") } }
        #expect(fired.withLock { $0 } == ["wait 2", "timeout", "wait 4"])
    }

    @Test func aRetryDeadlineEndsTheCallWhenTheBackoffWouldPassIt() throws {
        let (mock, calls) = sequence([.success(MockResponse(status: 503))])
        let result = Captured<Result<Data, any Error>>()
        mock.with(
            .retry(
                RetryPolicy(maximumAttempts: 10, backoff: Backoff(initialDelay: 2, jitter: 0), deadline: 5),
                scheduler: TestScheduler()
            )
        )
        .perform(TestRequest("https://api.example.com/x"), completion: result.capture)
        #expect(calls.withLock { $0 } == 2)
        #expect(result.values.count == 1)
        guard case .attemptsExhausted(2, let last, _) = try fetchError(result.value).fetchKind,
            case .timedOut = last.fetchKind
        else {
            Issue.record("expected .attemptsExhausted(2, .timedOut), got \(String(describing: result.value))")
            return
        }
    }
}
