import Fetch
import Foundation
import Testing

/// One backoff for retries, reconnections and resumed downloads: exponential, capped, with jitter taken off.
@Suite struct BackoffTests {
    @Test func waitsGrowByTheMultiplierUpToTheMaximumLessTheJitter() {
        let backoff = Backoff(initialDelay: 1, multiplier: 2, maximumDelay: 5, jitter: 0.5)
        #expect((1...4).map { backoff.delay(afterFailures: $0, random: 0) } == [1, 2, 4, 5])
        #expect((1...4).map { backoff.delay(afterFailures: $0, random: 1) } == [0.5, 1, 2, 2.5])
        #expect(backoff.delay(afterFailures: 1, startingAt: 3, random: 0) == 3)
    }

    @Test func jitterIsHeldWithinZeroAndOneAndNoWaitIsNegativeOrNaN() {
        #expect(Backoff(jitter: 7).jitter == 1)
        #expect(Backoff(jitter: -1).jitter == 0)
        #expect(Backoff(jitter: .nan).jitter == 0)
        #expect(Backoff(initialDelay: -3, jitter: 0).delay(afterFailures: 1, random: 0) == 0)
        #expect(Backoff(initialDelay: 1, jitter: 0.5).delay(afterFailures: 1, random: .nan) == 1)
        #expect(Backoff(initialDelay: 1, multiplier: 2, maximumDelay: 30).delay(afterFailures: 5000, random: 0) == 30)
    }

    @Test func retriesAndReconnectionsWaitAsTheBackoffTheyHoldSays() {
        let backoff = Backoff(initialDelay: 1, multiplier: 3, maximumDelay: 20, jitter: 0.5)
        let retry = RetryPolicy(backoff: backoff)
        let reconnect = ReconnectPolicy(backoff: backoff)
        #expect(retry.backoff == reconnect.backoff)
        // A retry waits after each failed attempt; a reconnection waits the first delay after a dropped
        // connection, and grows with each failed reconnection after it.
        #expect(retry.backoff(beforeAttempt: 2, random: 0) == 1)
        #expect(retry.backoff(beforeAttempt: 3, random: 1) == 1.5)
        #expect(reconnect.delay(reconnectionTime: nil, failures: 0) == 1)
        #expect(reconnect.delay(reconnectionTime: nil, failures: 1, random: 1) == 1.5)
        #expect(reconnect.delay(reconnectionTime: nil, failures: 2, random: 0) == 9)
        // The stream's floor holds whatever the jitter takes off.
        let quick = ReconnectPolicy(backoff: Backoff(initialDelay: 0.1, multiplier: 1, maximumDelay: 1, jitter: 1))
        #expect(quick.delay(reconnectionTime: nil, failures: 3, random: 1) == 0.1)
    }

    @Test func theDefaultsAreTheOnesEachPolicyDocuments() {
        #expect(RetryPolicy.default.backoff == Backoff(initialDelay: 0.5, multiplier: 2, maximumDelay: 30, jitter: 0.2))
        #expect(ReconnectPolicy.default.backoff == Backoff(initialDelay: 3, multiplier: 2, maximumDelay: 60, jitter: 0))
        #expect(DownloadResumption().retryPolicy.backoff == RetryPolicy.default.backoff)
    }
}
