import Fetch
import Foundation
import Testing

/// `ReconnectPolicy.delay`: the server's `retry:` and the backoff, held between the floor and `maximumDelay`.
@Suite struct ReconnectPolicyTests {
    @Test func aServersRetryLongerThanTheMaximumWaitsTheMaximum() {
        let policy = ReconnectPolicy(backoff: Backoff(initialDelay: 3, maximumDelay: 2, jitter: 0))
        #expect(policy.delay(reconnectionTime: 9_999_999_999_999, failures: 0) == 2)
        #expect(policy.delay(reconnectionTime: .max, failures: 0) == 2)
        #expect(policy.delay(reconnectionTime: .max, failures: 3) == 2)
        #expect(policy.delay(reconnectionTime: 1500, failures: 0) == 1.5)
    }

    @Test func aRetryOfZeroWaitsTheFloorAndTheBackoffGrowsFromIt() {
        let policy = ReconnectPolicy()
        #expect(policy.delay(reconnectionTime: 0, failures: 0) == 0.1)
        #expect(policy.delay(reconnectionTime: 0, failures: 1) == 0.2)
        #expect(policy.delay(reconnectionTime: 0, failures: 3) == 0.8)
        #expect(policy.delay(reconnectionTime: 0, failures: 5000) == 60)
    }

    @Test func thePolicysOwnWaitIsHeldBetweenTheFloorAndTheMaximum() {
        #expect(
            ReconnectPolicy(backoff: Backoff(initialDelay: 0, maximumDelay: 60, jitter: 0)).delay(
                reconnectionTime: nil, failures: 0) == 0.1)
        #expect(
            ReconnectPolicy(backoff: Backoff(initialDelay: -5, maximumDelay: 60, jitter: 0)).delay(
                reconnectionTime: nil, failures: 2) == 0.4)
        #expect(
            ReconnectPolicy(backoff: Backoff(initialDelay: .nan, maximumDelay: 60, jitter: 0)).delay(
                reconnectionTime: nil, failures: 0) == 0.1)
        #expect(
            ReconnectPolicy(backoff: Backoff(initialDelay: 100, maximumDelay: 10, jitter: 0)).delay(
                reconnectionTime: nil, failures: 0) == 10)
        #expect(
            ReconnectPolicy(backoff: Backoff(initialDelay: 3, maximumDelay: 0, jitter: 0)).delay(
                reconnectionTime: 5000, failures: 4) == 0.1)
        #expect(
            ReconnectPolicy(backoff: Backoff(initialDelay: 1, maximumDelay: 60, jitter: 0)).delay(
                reconnectionTime: nil, failures: 2) == 4)
    }
}
