import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of the "Record and replay" article (Fetch.docc/RecordAndReplay.md); the tests below run the round trip
// they show, with a MockPerformer in the place of the server, and the header matching.

func recordSample(session: any RequestPerforming, file: URL) async throws {
    // DOC-BEGIN
    let recorded = try session.with(.record(to: file, redacting: ["X-API-Key", "api_key"]))
    let user: User = try await recorded.perform(GetUser(baseURL: baseURL, id: 7))  // one entry in the file
    // DOC-END
    _ = user
}

func replaySample(fixture: URL) throws {
    // DOC-BEGIN
    let mock = try MockPerformer(replaying: fixture)
    let user = Captured<Result<User, any Error>>()
    UserAPI(baseURL: baseURL, performer: mock).user(id: 7, completion: user.capture)
    #expect(try user.value?.get().name == "Ada")
    // DOC-END
}

func refreshSample(fixture: URL) throws -> any RequestPerforming {
    // DOC-BEGIN
    let performer: any RequestPerforming =
        ProcessInfo.processInfo.environment["RECORD_FIXTURES"] == nil
        ? try MockPerformer(replaying: fixture)
        : try Session().with(.record(to: fixture))
    // DOC-END
    return performer
}

func headerMatchingSample(fixture: URL) throws -> MockPerformer {
    // DOC-BEGIN
    let matcher = HARMatcher(includingHeaders: true, ignoringHeaders: ["X-Request-ID", "User-Agent"])
    let strict = try MockPerformer(replaying: fixture, matching: matcher)
    // DOC-END
    return strict
}

@Suite struct RecordAndReplaySampleTests {
    @Test func theRoundTripOfTheREADMERecordsOneEntryAndReplaysIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "readme-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // a temporary directory left over is harmless
        let file = directory.appending(path: "api.har")

        try await recordSample(session: MockPerformer { _ in .json(#"{"id": 7, "name": "Ada"}"#) }, file: file)
        // Read back as any HAR reader would: `HAR` itself is not public.
        let archive = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let entries = try #require((archive["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(
            entries.map { ($0["request"] as? [String: Any])?["url"] as? String } == ["https://api.example.com/users/7"])
        try replaySample(fixture: file)
    }

    @Test func theHeaderMatcherComparesHeadersButTheIgnoredOnes() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "readme-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // a temporary directory left over is harmless
        let file = directory.appending(path: "api.har")
        let url = try #require(URL(string: "https://api.example.com/users/7"))
        let recorded = try MockPerformer { _ in .json(#"{"id": 7, "name": "Ada"}"#) }.with(.record(to: file))
        recorded.perform(APIRequest(url).header("Accept-Language", "en").header("X-Request-ID", "1")) {
            (_: Result<Data, any Error>) in
        }
        let strict = try headerMatchingSample(fixture: file)
        func answer(_ request: APIRequest) -> Result<Data, any Error>? {
            let captured = Captured<Result<Data, any Error>>()
            strict.perform(request, completion: captured.capture)
            return captured.value
        }
        let sameButTheRequestID = APIRequest(url).header("accept-language", "en").header("X-Request-ID", "2")
        #expect(try answer(sameButTheRequestID)?.get() == Data(#"{"id": 7, "name": "Ada"}"#.utf8))
        let anotherLanguage = APIRequest(url).header("Accept-Language", "fr").header("X-Request-ID", "1")
        #expect(throws: NoRecordedAnswer.self) { try answer(anotherLanguage)?.get() }
        let loose = try MockPerformer(replaying: file)
        let captured = Captured<Result<Data, any Error>>()
        loose.perform(anotherLanguage, completion: captured.capture)
        #expect(try captured.value?.get() != nil)
    }
}
