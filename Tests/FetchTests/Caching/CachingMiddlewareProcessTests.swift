import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A disk cache across processes: one process fills it from the loopback test server, and the next answers from it
/// with that server gone, as an app does after a restart without network.
///
/// The test runs this test binary again, filtered to itself, with `FETCH_CACHE_CHILD` set to what the child does
/// (`fill`, then `offline`), as ``DiskResponseStoreProcessTests`` does. Each test process starts its own loopback
/// server and stops it when it exits, so the filling child's server is gone when the second child runs: its port
/// refuses connections, which the second child checks before anything else.
@Suite(.enabled(if: ChildSuiteRun.isAvailable, "runs this test binary again through /proc/self/exe (Linux)"))
struct CachingMiddlewareProcessTests {
    static let childVariable = "FETCH_CACHE_CHILD"
    static let test = "CachingMiddlewareProcessTests/aSecondProcessAnswersFromTheDiskCacheWithTheServerGone"

    @Test func aSecondProcessAnswersFromTheDiskCacheWithTheServerGone() async throws {
        let environment = ProcessInfo.processInfo.environment
        if let role = environment[Self.childVariable] {
            return try await runAsChild(role, environment: environment)
        }
        let directory = try TemporaryDirectory()
        let shared = ["FETCH_CACHE_DIRECTORY": directory.url.path, "FETCH_CACHE_ID": UUID().uuidString]

        let filler = try ChildTestRun(
            filter: Self.test, environment: shared.merging([Self.childVariable: "fill"]) { $1 })
        let filled = try await filler.finish(within: .seconds(120))
        #expect(filled.status == 0, "the filling run failed:\n\(filled.output)")
        #expect(filled.output.contains("Test run with 1 test"), "the filling child ran no test:\n\(filled.output)")
        let serverLine = try #require(filled.output.split(separator: "\n").first { $0.hasPrefix("SERVER ") })

        let reader = try ChildTestRun(
            filter: Self.test,
            environment: shared.merging([
                Self.childVariable: "offline", "FETCH_CACHE_SERVER": String(serverLine.dropFirst(7)),
            ]) {
                $1
            })
        let read = try await reader.finish(within: .seconds(120))
        #expect(read.status == 0, "the offline run failed:\n\(read.output)")
        #expect(read.output.contains("Test run with 1 test"), "the offline child ran no test:\n\(read.output)")
        #expect(read.output.contains("ANSWERED 2"), "the offline child answered nothing:\n\(read.output)")
    }

    /// The child's side: `fill` stores a fresh response and one that is stale at once from its own loopback server;
    /// `offline` finds that server gone and answers both from the directory.
    func runAsChild(_ role: String, environment: [String: String]) async throws {
        let directory = URL(fileURLWithPath: try #require(environment["FETCH_CACHE_DIRECTORY"]))
        let id = try #require(environment["FETCH_CACHE_ID"])
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let session = makeSession(configuration: configuration)
        switch role {
        case "fill":
            let server = try TestServer.running()
            print("SERVER \(server.url(""))")
            let performer = try CachedPerformer(session, ResponseCache(directory: directory))
            let fresh: Hit = try await performer.perform(
                TestRequest(server.url("/cacheable/fresh-\(id)?cc=max-age=3600")))
            let stale: Hit = try await performer.perform(
                TestRequest(server.url("/cacheable/stale-\(id)?cc=max-age=0&etag=v1")))
            #expect([fresh, stale] == [Hit(hit: 1), Hit(hit: 1)])
            #expect(performer.storedResponseCount == 2)
        case "offline":
            let base = try #require(environment["FETCH_CACHE_SERVER"])
            let fresh = TestRequest(try #require(URL(string: base + "/cacheable/fresh-\(id)?cc=max-age=3600")))
            let stale = TestRequest(try #require(URL(string: base + "/cacheable/stale-\(id)?cc=max-age=0&etag=v1")))
            await #expect(throws: FetchError.self, "the first child's server should be gone") {
                _ = try await session.perform(fresh) as Data
            }

            let strict = try CachedPerformer(session, ResponseCache(directory: directory))
            let offline = try CachedPerformer(
                session, ResponseCache(directory: directory, offlinePolicy: .serveStoredOnFailure))

            let freshAnswer: Response = try await strict.perform(fresh)
            #expect(!freshAnswer.isStale)
            #expect(try Hit.parse(response: freshAnswer, errorParser: nil).get() == Hit(hit: 1))
            await #expect(throws: FetchError.self, "without the offline policy, a stale response is not served") {
                _ = try await strict.perform(stale) as Hit
            }
            let staleAnswer: Response = try await offline.perform(stale)
            #expect(staleAnswer.isStale)
            #expect(try Hit.parse(response: staleAnswer, errorParser: nil).get() == Hit(hit: 1))
            print("ANSWERED 2")
        default:
            Issue.record("unknown role \(role)")
        }
    }
}
