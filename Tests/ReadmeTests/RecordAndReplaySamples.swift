import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of README.md's "Record and replay"; the test below runs the round trip they show, with a
// MockPerformer in the place of the server.

func recordSample(session: any RequestPerforming, file: URL) async throws {
    // README-BEGIN
    let recorded = try session.recording(to: file, redacting: [.header("X-API-Key"), .queryItem("api_key")])
    let user: User = try await recorded.perform(GetUser(baseURL: baseURL, id: 7))  // one entry in the file
    // README-END
    _ = user
}

func replaySample(fixture: URL) throws {
    // README-BEGIN
    let mock = try MockPerformer(replaying: fixture)
    let user = Captured<Result<User, any Error>>()
    UserAPI(baseURL: baseURL, performer: mock).user(id: 7, completion: user.capture)
    #expect(try user.value?.get().name == "Ada")
    // README-END
}

func onceSample(fixture: URL) throws -> ReplayingPerformer {
    // README-BEGIN
    let performer = try ReplayingPerformer(
        harFile: fixture,
        mode: ProcessInfo.processInfo.environment["RECORD_FIXTURES"] == nil ? .once : .record,
        live: Session(transport: URLSessionTransport(configuration: .ephemeral))
    )
    // README-END
    return performer
}

@Suite struct RecordAndReplaySampleTests {
    @Test func theRoundTripOfTheREADMERecordsOneEntryAndReplaysIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "readme-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // a temporary directory left over is harmless
        let file = directory.appending(path: "api.har")

        try await recordSample(session: MockPerformer(response: .json(#"{"id": 7, "name": "Ada"}"#)), file: file)
        #expect(try HAR(contentsOf: file).log.entries.map(\.request.url) == ["https://api.example.com/users/7"])
        try replaySample(fixture: file)
    }
}
