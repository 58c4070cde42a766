import Fetch
import FetchTesting
import Foundation
import Testing

/// `ReplayingPerformer`: replays what the file has, sends and records what it has not.
@Suite struct ReplayingPerformerTests {
    struct Item: Decodable, Parsable, Equatable {
        let id: Int
    }

    private let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    /// The live server: every call it answers is counted by the spy.
    let live = SpyPerformer(
        forwardingTo: MockPerformer { request in
            .json(#"{"id":\#(request.url.lastPathComponent.count)}"#)
        })

    init() throws {
        temporary = try TemporaryDirectory("Replaying")
    }

    func request(_ path: String) throws -> APIRequest {
        APIRequest(try #require(URL(string: "http://api.test" + path)))
    }

    func perform(_ performer: ReplayingPerformer, _ path: String) async throws -> Item {
        try await performer.perform(request(path))
    }

    @Test func onceRecordsWhatTheFileLacksAndReplaysWhatItHas() async throws {
        let file = directory.appendingPathComponent("once.har")
        let first = try ReplayingPerformer(harFile: file, mode: .once, live: live)
        #expect(try await perform(first, "/abc") == Item(id: 3))
        #expect(live.calls.count == 1)
        #expect(try HAR(contentsOf: file).log.entries.count == 1)

        let second = try ReplayingPerformer(harFile: file, mode: .once, live: live)
        #expect(try await perform(second, "/abc") == Item(id: 3))
        #expect(live.calls.count == 1, "a recorded request was sent again")
        #expect(try await perform(second, "/abcdef") == Item(id: 6))
        #expect(live.calls.count == 2)
        #expect(
            try HAR(contentsOf: file).log.entries.map(\.request.url) == [
                "http://api.test/abc", "http://api.test/abcdef",
            ])
        let verdict = try HARValidator.check(file)
        #expect(verdict.isValid, "\(verdict.output)")
    }

    @Test func onceSendsARequestAgainWhenItsRecordedAnswersAreUsedUp() async throws {
        let file = directory.appendingPathComponent("twice.har")
        let recorder = try ReplayingPerformer(harFile: file, mode: .once, live: live)
        _ = try await perform(recorder, "/ab")
        _ = try await perform(recorder, "/ab")
        #expect(live.calls.count == 2)
        let replayer = try ReplayingPerformer(harFile: file, mode: .once, live: live)
        _ = try await perform(replayer, "/ab")
        _ = try await perform(replayer, "/ab")
        _ = try await perform(replayer, "/ab")
        #expect(live.calls.count == 3)
        #expect(try HAR(contentsOf: file).log.entries.count == 3)
    }

    @Test func replayNeverSendsAndNamesTheClosestRecordedRequest() async throws {
        let file = directory.appendingPathComponent("replay.har")
        _ = try await perform(ReplayingPerformer(harFile: file, mode: .record, live: live), "/users/1")
        let replayer = try ReplayingPerformer(harFile: file, mode: .replay, live: live)
        #expect(try await perform(replayer, "/users/1") == Item(id: 1))
        let error = await #expect(throws: NoRecordedAnswer.self) { try await perform(replayer, "/users/2") }
        #expect(error?.closestEntry == 0)
        #expect(error?.differingParts == [.url])
        #expect(live.calls.count == 1)
    }

    @Test func recordStartsTheFileOver() async throws {
        let file = directory.appendingPathComponent("record.har")
        let once = try ReplayingPerformer(harFile: file, mode: .once, live: live)
        _ = try await perform(once, "/old")
        let record = try ReplayingPerformer(harFile: file, mode: .record, live: live)
        _ = try await perform(record, "/new")
        _ = try await perform(record, "/new")
        #expect(live.calls.count == 3)
        #expect(
            try HAR(contentsOf: file).log.entries.map(\.request.url) == ["http://api.test/new", "http://api.test/new"])
    }

    @Test func onceRecordsARealSessionAndReplaysItWithoutTheNetwork() async throws {
        let server = try TestServer.running()
        let file = directory.appendingPathComponent("session.har")
        let request = APIRequest(server.url("/users/1"))
        let recorder = try ReplayingPerformer(harFile: file, live: makeSession())
        let recorded: User = try await recorder.perform(request)
        let offline = try ReplayingPerformer(
            harFile: file, live: MockPerformer(error: URLError(.notConnectedToInternet)))
        let replayed = Captured<Result<User, any Error>>()
        offline.perform(request, completion: replayed.capture)
        #expect(try replayed.value?.get() == recorded)
        #expect(recorded.name == "Ada Lovelace")
    }

    @Test func aTransportFailureIsDeliveredAndNotRecorded() async throws {
        let file = directory.appendingPathComponent("failure.har")
        let performer = try ReplayingPerformer(
            harFile: file, live: MockPerformer(error: URLError(.cannotConnectToHost)))
        await #expect(throws: FetchError.self) { try await perform(performer, "/down") }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
