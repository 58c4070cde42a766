import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct RetryPolicyTests {
    let now = Date(timeIntervalSince1970: 1_796_028_132)
    let policy = RetryPolicy(backoff: Backoff(jitter: 0))

    func decide(
        _ outcome: Result<Response, any Error>,
        method: HTTPMethod = .get,
        attempt: Int = 1,
        policy: RetryPolicy? = nil
    ) -> RetryPolicy.Decision {
        (policy ?? self.policy).decide(after: outcome, method: method, attempt: attempt, now: now, random: 1)
    }

    @Test func backoffGrowsExponentiallyUpToTheCap() {
        let policy = RetryPolicy(backoff: Backoff(initialDelay: 0.5, multiplier: 2, maximumDelay: 3, jitter: 0))
        #expect((2...6).map { policy.backoff(beforeAttempt: $0, random: 0.7) } == [0.5, 1, 2, 3, 3])
    }

    @Test func jitterTakesARandomShareOffTheWait() {
        let policy = RetryPolicy(backoff: Backoff(initialDelay: 1, jitter: 0.5))
        #expect(policy.backoff(beforeAttempt: 2, random: 0) == 1)
        #expect(policy.backoff(beforeAttempt: 2, random: 1) == 0.5)
        #expect(policy.backoff(beforeAttempt: 2, random: 0.5) == 0.75)
    }

    /// On Linux each random number is a system call: an answer delivered as it is reads none, a retry one.
    @Test func theJitterIsDrawnOnlyForARetry() {
        var draws = 0
        func draw() -> Double {
            draws += 1
            return 1
        }
        let policy = RetryPolicy(backoff: Backoff(initialDelay: 1, jitter: 0.5))
        #expect(
            policy.decide(after: .success(response(status: 200)), method: .get, attempt: 1, now: now, random: draw())
                == .deliver)
        #expect(
            policy.decide(after: .success(response(status: 503)), method: .post, attempt: 1, now: now, random: draw())
                == .deliver)
        #expect(draws == 0)
        #expect(
            policy.decide(after: .success(response(status: 503)), method: .get, attempt: 1, now: now, random: draw())
                == .retry(after: 0.5, reason: HTTPStatus.line(503)))
        #expect(draws == 1)
    }

    @Test(arguments: [408, 429, 502, 503, 504])
    func retryableStatusesAreRetried(status: Int) {
        #expect(decide(.success(response(status: status))) == .retry(after: 0.5, reason: HTTPStatus.line(status)))
    }

    @Test(arguments: [200, 400, 401, 404, 500, 501])
    func otherStatusesAreDelivered(status: Int) {
        #expect(decide(.success(response(status: status))) == .deliver)
    }

    @Test(arguments: [HTTPMethod.post, .patch, .connect])
    func nonIdempotentMethodsAreNotRetriedByDefault(method: HTTPMethod) {
        #expect(decide(.success(response(status: 503)), method: method) == .deliver)
        #expect(decide(.failure(FetchError.timedOut()), method: method) == .deliver)
    }

    @Test func aPOSTIsRetriedWhenThePolicySaysSo() {
        var policy = self.policy
        policy.retryableMethods.insert(.post)
        #expect(decide(.success(response(status: 503)), method: .post, policy: policy) != .deliver)
    }

    @Test func connectionFailuresAndTimeoutsAreRetried() {
        #expect(decide(.failure(FetchError.timedOut())) == .retry(after: 0.5, reason: "timed out"))
        #expect(decide(.failure(FetchError.transport(URLError(.cannotConnectToHost)))) != .deliver)
        #expect(decide(.failure(FetchError.transport(URLError(.networkConnectionLost)))) != .deliver)
        #expect(decide(.failure(FetchError.transport(URLError(.badURL)))) == .deliver)
    }

    @Test func aCancelledCallIsNeverRetried() {
        #expect(decide(.failure(FetchError.cancelled())) == .deliver)
        #expect(decide(.failure(FetchError.transport(URLError(.cancelled)))) == .deliver)
    }

    @Test func theLastAttemptIsDelivered() {
        #expect(decide(.success(response(status: 503)), attempt: 2) != .deliver)
        #expect(decide(.success(response(status: 503)), attempt: 3) == .deliver)
    }

    @Test func retryAfterInSecondsSetsTheWait() {
        let answer = response(status: 503, headers: ["Retry-After": "7"])
        #expect(decide(.success(answer)) == .retry(after: 7, reason: "503 Service Unavailable, Retry-After: 7"))
    }

    @Test func retryAfterAsAnHTTPDateSetsTheWait() {
        let answer = response(status: 429, headers: ["retry-after": "Mon, 30 Nov 2026 08:42:22 GMT"])
        #expect(
            decide(.success(answer))
                == .retry(after: 10, reason: "429 Too Many Requests, Retry-After: Mon, 30 Nov 2026 08:42:22 GMT"))
    }

    @Test func aRetryAfterLongerThanTheCapIsNotWaitedFor() {
        let answer = response(status: 503, headers: ["Retry-After": "3600"])
        #expect(decide(.success(answer)) == .deliver)
    }

    @Test(arguments: [
        ("120", 120.0), ("0", 0), ("Mon, 30 Nov 2026 08:43:12 GMT", 60), ("Monday, 30-Nov-26 08:43:12 GMT", 60),
        ("Mon Nov 30 08:43:12 2026", 60), ("Mon, 30 Nov 2026 08:00:00 GMT", 0),
    ])
    func retryAfterValuesAreRead(value: String, seconds: TimeInterval) {
        #expect(RetryPolicy.retryAfter(value, now: now) == seconds)
    }

    @Test(arguments: ["soon", "-5", "1.5", "", "+5", "0x10", "1e3", "5 s"])
    func invalidRetryAfterValuesAreIgnored(value: String) {
        #expect(RetryPolicy.retryAfter(value, now: now) == nil)
    }
}
