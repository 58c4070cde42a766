import Fetch
import Foundation

extension MockPerformer {
    /// Creates a performer that answers from a HAR file, synchronously, through the same parse path as every
    /// double.
    ///
    /// This is how a test replays a recording: record with `recording(to:)` on the live pipeline, replay here.
    /// Each request gets the response of the first recorded request that matches it (see ``HARMatcher``) and has
    /// not answered yet, so requests recorded more than once answer in recorded order; when all have answered, the
    /// last answers again. A request that matches none fails with ``NoRecordedAnswer``, which names it, the closest
    /// recorded request and how they differ.
    ///
    /// ```swift
    /// let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("api.har")
    /// let mock = try MockPerformer(replaying: fixture)
    /// let user: User = try await mock.perform(GetUser(id: 1))
    /// ```
    ///
    /// - Parameters:
    ///   - harFile: The HAR file, recorded by Fetch or exported from a browser's developer tools.
    ///   - matcher: How requests are matched. The default compares method, URL and body.
    /// - Throws: `HARError` when the file cannot be read or is not HAR, naming the JSON path of the problem; no
    ///   performer is made from a file that is partly wrong.
    public convenience init(replaying harFile: URL, matching matcher: HARMatcher = HARMatcher()) throws {
        try self.init(replaying: HAR(contentsOf: harFile), from: harFile, matching: matcher)
    }

    /// Creates a performer that answers from a HAR archive in memory, as `init(replaying:matching:)` does from a
    /// file.
    ///
    /// - Parameters:
    ///   - archive: The archive.
    ///   - matcher: How requests are matched. The default compares method, URL and body.
    /// - Throws: `HARError` when a body's text is not what its encoding says.
    package convenience init(replaying archive: HAR, matching matcher: HARMatcher = HARMatcher()) throws {
        try self.init(replaying: archive, from: nil, matching: matcher)
    }

    private convenience init(replaying archive: HAR, from file: URL?, matching matcher: HARMatcher) throws {
        let replay = try HARReplay(archive, file: file, matcher: matcher)
        self.init { request in
            // MockPerformer has built this request once already, so building it again succeeds the same way.
            let urlRequest = try request.makeURLRequest()
            return try replay.answerOrFailure(for: request, sending: urlRequest)
        }
    }
}
