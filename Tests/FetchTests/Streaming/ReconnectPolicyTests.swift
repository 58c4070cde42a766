import Fetch
import Foundation
import Testing

/// `ReconnectPolicy.delay`: the server's `retry:` and the backoff, held between the floor and `maximumDelay`.
@Suite struct ReconnectPolicyTests {
    @Test func aServersRetryLongerThanTheMaximumWaitsTheMaximum() {
        let policy = ReconnectPolicy(maximumDelay: 2)
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
        #expect(ReconnectPolicy(retryDelay: 0).delay(reconnectionTime: nil, failures: 0) == 0.1)
        #expect(ReconnectPolicy(retryDelay: -5).delay(reconnectionTime: nil, failures: 2) == 0.4)
        #expect(ReconnectPolicy(retryDelay: .nan).delay(reconnectionTime: nil, failures: 0) == 0.1)
        #expect(ReconnectPolicy(retryDelay: 100, maximumDelay: 10).delay(reconnectionTime: nil, failures: 0) == 10)
        #expect(ReconnectPolicy(maximumDelay: 0).delay(reconnectionTime: 5000, failures: 4) == 0.1)
        #expect(ReconnectPolicy(retryDelay: 1).delay(reconnectionTime: nil, failures: 2) == 4)
    }
}
