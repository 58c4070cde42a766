import FetchTesting
import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server's `Age` of any form cannot crash the cache when it serves the response stale: not from memory, not from
/// disk, not from a file read back after a restart. The checks run in a process of their own, so that a regression
/// (a trap converting the age) fails this test instead of killing the whole run.
@Suite(.enabled(if: ChildSuiteRun.isAvailable, "runs this test binary again through /proc/self/exe (Linux)"))
struct CachingMiddlewareAgeTests {
    static let childVariable = "FETCH_CACHE_AGE_CHILD"
    /// Each `Age` a server might send, and the `Age` the cache must give after 100 seconds: an invalid value is
    /// ignored (RFC 9111 §5.1), a huge one is read as 2^31 (§1.2.2), a list counts by its first member.
    static let ages: [(sent: String, served: Int)] = [
        ("1e300", 100), ("inf", 100), ("-1", 100), ("nan", 100), ("0x10", 100),
        ("99999999999999999999", WireNumber.maximumDeltaSeconds), ("5, 7", 105), ("12", 112),
    ]

    /// Answers the first request with `headers`, and fails every later one as if offline.
    static func onceThenOffline(_ headers: HeaderFields) -> MockPerformer {
        let calls = Locked(0)
        return MockPerformer { _ in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            guard call == 1 else {
                throw URLError(.notConnectedToInternet)
            }
            return MockResponse(headers: headers, data: Data(#"{"hit": 1}"#.utf8))
        }
    }

    @Test func anyAgeIsServedStaleAsASaneAgeFromMemoryDiskAndAfterARestart() async throws {
        guard
            try await ChildTestRun.isChild(
                running: "CachingMiddlewareAgeTests/anyAgeIsServedStaleAsASaneAgeFromMemoryDiskAndAfterARestart",
                marking: Self.childVariable, within: .seconds(300))
        else {
            return
        }
        for (sent, served) in Self.ages {
            let headers: HeaderFields = ["Cache-Control": "max-age=1", "Age": sent, "ETag": #""a""#]
            let directory = try TemporaryDirectory()
            let clock = TestClock()
            let now: @Sendable () -> Date = { clock.now }
            let memory = CachedPerformer(
                Self.onceThenOffline(headers), ResponseCache(offlinePolicy: .serveStoredOnFailure, now: now))
            let disk = try CachedPerformer(
                Self.onceThenOffline(headers),
                ResponseCache(directory: directory.url, maximumBytes: 0, offlinePolicy: .serveStoredOnFailure, now: now)
            )
            for performer in [memory, disk] {
                let _: Hit = try await performer.perform(TestRequest("http://example.test/age"))
            }
            clock.advance(by: 100)
            let restarted = try CachedPerformer(
                MockPerformer { _ in throw URLError(.notConnectedToInternet) },
                ResponseCache(directory: directory.url, offlinePolicy: .serveStoredOnFailure, now: now))

            for (name, performer) in [("memory", memory), ("disk", disk), ("disk after a restart", restarted)] {
                let response: Response = try await performer.perform(TestRequest("http://example.test/age"))
                #expect(response.isStale, "Age \(sent), \(name)")
                #expect(response.headers["Age"] == String(served), "Age \(sent), \(name)")
            }
        }
    }
}
