import Fetch
import FetchTesting
import Foundation
import Testing

/// A call that joins one in flight reports it, naming the first caller's request; the first caller reports nothing
/// extra.
@Suite struct DeduplicatingMiddlewareEventTests {
    /// The same `GET` for every caller, told apart by `caller`, which is not sent.
    struct CallerRequest: Request {
        let caller: String
        var url: URL

        init(_ caller: String, url: URL = URL(fileURLWithPath: "/shared")) {
            self.caller = caller
            self.url = url
        }
    }

    @Test func twoCallsThatJoinEachReportJoinedNamingTheFirstCaller() throws {
        let spy = SpyPerformer()
        let deduplicate: DeduplicatingMiddleware = .deduplicate()
        let observed = (0..<3).map { _ in Captured<FetchEvent>() }
        let results = Captured<Result<String, any Error>>()
        for (index, events) in observed.enumerated() {
            spy.with(.observe(events.capture), deduplicate)
                .perform(CallerRequest("caller \(index)"), completion: results.capture)
        }
        #expect(spy.calls.count == 1)
        spy.complete(with: .text("shared"))

        #expect(try results.values.map { try $0.get() } == ["shared", "shared", "shared"])
        #expect(
            observed[0].values.map(\.name.description) == ["started", "attemptStarted", "attemptFinished", "finished"])
        for events in observed.dropFirst() {
            try #require(events.values.map(\.name.description) == ["started", "joined", "finished"])
            let initiator = try #require(events.values[1].initiator as? CallerRequest)
            #expect(initiator.caller == "caller 0")
        }
        #expect((observed[2].values[1].request as? CallerRequest)?.caller == "caller 2")
    }

    @Test func aCallThatStartsAfterTheSharedOneEndedDoesNotJoin() throws {
        let spy = SpyPerformer()
        let deduplicate: DeduplicatingMiddleware = .deduplicate()
        let events = Captured<FetchEvent>()
        let api = spy.with(.observe(events.capture), deduplicate)
        api.perform(CallerRequest("first")) { (_: Result<String, any Error>) in }
        spy.complete(with: .text("one"))
        api.perform(CallerRequest("second")) { (_: Result<String, any Error>) in }
        spy.complete(with: .text("two"))

        #expect(!events.values.contains { $0.name == .joined })
        #expect(spy.calls.count == 2)
    }

    @Test func overTheLoopbackServerJoinersReportJoinedAndTheServerSeesOneRequest() async throws {
        let server = try TestServer.running()
        let path = "/slow/\(UUID().uuidString)"
        let url = server.url(path + "?ms=500")
        let deduplicate: DeduplicatingMiddleware = .deduplicate()
        let session = makeSession()
        let first = Captured<FetchEvent>()
        let joiners = (0..<2).map { _ in Captured<FetchEvent>() }
        let results = Captured<Result<Hit, any Error>>()

        session.with(.observe(first.capture), deduplicate).perform(CallerRequest("first", url: url)) {
            results.capture($0)
        }
        for (index, events) in joiners.enumerated() {
            session.with(.observe(events.capture), deduplicate).perform(
                CallerRequest("joiner \(index)", url: url), completion: results.capture)
        }

        let hits = try await results.wait(for: 3)
        #expect(try hits.map { try $0.get() } == [Hit(hit: 1), Hit(hit: 1), Hit(hit: 1)])
        #expect(try await server.hits(path) == 1)
        #expect(!first.values.contains { $0.name == .joined })
        for events in joiners {
            _ = try await events.wait(for: 3)
            try #require(events.values.map(\.name.description) == ["started", "joined", "finished"])
            #expect((events.values[1].initiator as? CallerRequest)?.caller == "first")
        }
    }
}
