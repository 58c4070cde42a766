import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the test server's `/resume-stats/…` route says about one resource.
struct ResumeStats: Decodable, Parsable {
    struct Asked: Decodable {
        let range: String?
        let ifRange: String?
        let status: Int?
        /// The request's `X-Signature`.
        let signature: String?

        enum CodingKeys: String, CodingKey {
            case range
            case ifRange = "if_range"
            case status
            case signature
        }
    }

    let sent: Int
    let requests: [Asked]
}

/// What the test server's `/resume-digest` route answers.
struct ResumeDigest: Decodable, Parsable {
    let sha256: String
}

/// The loopback server's `/resume/…` resources, and what a test asks of them.
struct ResumeServer {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// A fresh resource's URL, with the server's behaviour in `query`.
    func resource(_ query: String) -> (id: String, url: URL) {
        let id = UUID().uuidString
        return (id, server.url("/resume/\(id)?\(query)"))
    }

    func stats(_ id: String) async throws -> ResumeStats {
        try await Session().perform(TestRequest(server.url("/resume-stats/\(id)")))
    }

    func digest(size: Int, version: Int = 1) async throws -> String {
        let answer: ResumeDigest = try await Session().perform(
            TestRequest(server.url("/resume-digest?size=\(size)&version=\(version)")))
        return answer.sha256
    }
}

/// Resumable downloads against the loopback server, which drops, stalls and changes its resources on request.
@Suite struct ResumableDownloadTests {
    let server: ResumeServer
    let transfers: Session
    let directory: TemporaryDirectory

    init() throws {
        server = try ResumeServer()
        transfers = try transferPerformer(.urlSession)
        directory = try TemporaryDirectory()
    }

    /// Waits between attempts without real time.
    static func resumption(attempts: Int = 3, sha256: String? = nil) -> DownloadResumption {
        DownloadResumption(
            retryPolicy: RetryPolicy(maximumAttempts: attempts),
            scheduler: TestScheduler(),
            expectedSHA256: sha256
        )
    }

    /// Downloads `url` and returns the response and every progress value.
    func download(
        _ url: URL,
        to destination: URL,
        resumption: DownloadResumption,
        timeout: TimeInterval? = nil,
        on transport: SessionTransport = .urlSession
    ) async throws -> (Response, [TransferProgress]) {
        let performer = transport == .urlSession ? transfers : try transferPerformer(transport)
        let transfer = performer.download(TestRequest(url, timeout: timeout), to: destination, resumption: resumption)
        var values: [TransferProgress] = []
        for await value in transfer.progress {
            values.append(value)
        }
        return (try await transfer.value, values)
    }

    static func isMonotonic(_ values: [TransferProgress]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { earlier, later in
            later.completedBytes >= earlier.completedBytes
                || later.event?.restartReason != nil
        }
    }

    static func failure(of transfer: Transfer<Response>) async throws -> FetchError {
        do {
            let response = try await transfer.value
            throw TestServerError("expected a FetchError, got \(response.status)")
        } catch let error as FetchError {
            return error
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func aDroppedDownloadResumesWithRangeAndIfRangeAndAppends(transport: SessionTransport) async throws {
        let size = 6 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(2 << 20)")
        let destination = directory.url.appending(path: "dropped.bin")
        let expected = try await server.digest(size: size)

        let (response, values) = try await download(
            url, to: destination, resumption: Self.resumption(sha256: expected), on: transport)

        #expect(response.status == 206)
        #expect(try SHA256.hexDigest(ofFile: destination) == expected)
        let stats = try await server.stats(id)
        #expect(stats.sent == size)
        #expect(stats.requests.map(\.range) == [nil, "bytes=2097152-", "bytes=4194304-"])
        #expect(stats.requests.dropFirst().allSatisfy { $0.ifRange == "\"v1-\(id)\"" })
        #expect(values.filter { $0.event == .resuming }.map(\.completedBytes) == [2 << 20, 4 << 20])
        #expect(Self.isMonotonic(values))
        #expect(values.last == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
        #expect(!FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
    }

    @Test(arguments: SessionTransport.allCases)
    func aDownloadThatTimesOutMidBodyResumes(transport: SessionTransport) async throws {
        let size = 3 << 20
        // A 3 s timeout against an 8 s stall: long enough for the first MiB on a loaded 2-core run of the whole
        // suite (1 s was not), short enough to end the stall.
        let (id, url) = server.resource("size=\(size)&stall_at=\(1 << 20)&stall_ms=8000")
        let destination = directory.url.appending(path: "stalled.bin")

        let (_, values) = try await download(
            url, to: destination, resumption: Self.resumption(), timeout: 3, on: transport)

        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        let stats = try await server.stats(id)
        try #require(stats.requests.count >= 2)
        #expect(stats.requests[1].range == "bytes=\(1 << 20)-")
        #expect(values.contains { $0.event == .resuming })
    }

    @Test func aResourceThatChangesMidDownloadStartsOverAndEndsWithTheNewContent() async throws {
        let size = 8 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(3 << 20)&change_at=\(2 << 20)")
        let destination = directory.url.appending(path: "changed.bin")
        let newDigest = try await server.digest(size: size, version: 2)

        let (_, values) = try await download(
            url, to: destination, resumption: Self.resumption(sha256: newDigest))

        #expect(try SHA256.hexDigest(ofFile: destination) == newDigest)
        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.status) == [200, 200, 206, 206])
        #expect(stats.requests[1].ifRange == "\"v1-\(id)\"")
        #expect(stats.requests[2].ifRange == "\"v2-\(id)\"")
        let restart = try #require(values.firstIndex { $0.event == .restarting(.resourceChanged) })
        #expect(values[restart].completedBytes == 0)
        #expect(Self.isMonotonic(values))
        #expect(values.last?.completedBytes == Int64(size))
    }

    @Test(arguments: [
        ("ranges=0", TransferProgress.RestartReason.rangesNotSupported),
        ("validator=none", .noValidator),
    ])
    func aServerThatCannotResumeIsStartedOverAndTheProgressSaysSo(
        query: String,
        reason: TransferProgress.RestartReason
    ) async throws {
        let size = 4 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(1 << 20)&drops=1&\(query)")
        let destination = directory.url.appending(path: "restarted.bin")

        let (response, values) = try await download(url, to: destination, resumption: Self.resumption())

        #expect(response.status == 200)
        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.range) == [nil, nil])
        #expect(values.contains { $0.event == .restarting(reason) && $0.completedBytes == 0 })
        #expect(!values.contains { $0.event == .resuming })
        #expect(values.last?.completedBytes == Int64(size))
    }

    /// The server's `Last-Modified` is years before its `Date`: a strong validator (RFC 9110 §8.8.2.2).
    @Test(arguments: SessionTransport.allCases)
    func aStrongLastModifiedValidatorIsSentInIfRange(transport: SessionTransport) async throws {
        let size = 2 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(1 << 20)&validator=lm")
        let destination = directory.url.appending(path: "last-modified-\(transport.rawValue).bin")

        _ = try await values(
            of: try transferPerformer(transport).download(
                TestRequest(url), to: destination, resumption: Self.resumption()))

        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.status) == [200, 206])
        #expect(stats.requests.last?.ifRange?.hasSuffix("GMT") == true)
    }

    @Test func aCorruptRecordMeansACleanStart() async throws {
        let size = 1 << 20
        let (id, url) = server.resource("size=\(size)")
        let destination = directory.url.appending(path: "corrupt.bin")
        try Data(repeating: 0xEE, count: 4096).write(to: DownloadResumption.partialFile(for: destination))
        try Data("{\"format\":1,\"url\":".utf8).write(to: directory.url.appending(path: "corrupt.bin.part.json"))

        let (_, values) = try await download(url, to: destination, resumption: Self.resumption())

        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        #expect(values.first?.event == .restarting(.unusablePartialFile))
        #expect(try await server.stats(id).requests.map(\.range) == [nil])
    }

    @Test func aRecordOfAnotherURLMeansACleanStart() async throws {
        let size = 1 << 20
        let (id, url) = server.resource("size=\(size)")
        let destination = directory.url.appending(path: "foreign.bin")
        try Data(repeating: 0xEE, count: 4096).write(to: DownloadResumption.partialFile(for: destination))
        try Data(#"{"format":1,"url":"http://127.0.0.1/other","entityTag":"\"v1-\#(id)\"","bytes":4096}"#.utf8)
            .write(to: directory.url.appending(path: "foreign.bin.part.json"))

        let (_, values) = try await download(url, to: destination, resumption: Self.resumption())

        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        #expect(values.first?.event == .restarting(.unusablePartialFile))
        #expect(try await server.stats(id).requests.map(\.range) == [nil])
    }

    /// The partial file an earlier run left is the whole resource: the server answers `416` with
    /// `Content-Range: bytes */<length>` equal to it, and the download finishes without fetching it again.
    @Test(arguments: SessionTransport.allCases)
    func aPartialFileThatIsAlreadyWholeEndsWithA416(transport: SessionTransport) async throws {
        let size = 1 << 20
        let (id, url) = server.resource("size=\(size)")
        let destination = directory.url.appending(path: "whole.bin")
        _ = try await download(url, to: destination, resumption: Self.resumption())
        try FileManager.default.moveItem(at: destination, to: DownloadResumption.partialFile(for: destination))
        try Data(#"{"format":1,"url":"\#(url.absoluteString)","entityTag":"\"v1-\#(id)\"","bytes":\#(size)}"#.utf8)
            .write(to: directory.url.appending(path: "whole.bin.part.json"))

        let (response, values) = try await download(
            url, to: destination, resumption: Self.resumption(), on: transport)

        #expect(response.status == 200)
        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.status) == [200, 416])
        #expect(stats.sent == size, "the body was sent once, by the first download")
        #expect(values.first?.event == .resuming)
        #expect(values.last?.completedBytes == Int64(size))
    }

    @Test(arguments: SessionTransport.allCases)
    func aPartialFileLongerThanTheResourceStartsOverAfterA416(transport: SessionTransport) async throws {
        let size = 1 << 20
        let (id, url) = server.resource("size=\(size)")
        let destination = directory.url.appending(path: "longer.bin")
        try Data(repeating: 0xEE, count: size + 10).write(to: DownloadResumption.partialFile(for: destination))
        try Data(#"{"format":1,"url":"\#(url.absoluteString)","entityTag":"\"v1-\#(id)\"","bytes":\#(size + 10)}"#.utf8)
            .write(to: directory.url.appending(path: "longer.bin.part.json"))

        let (_, values) = try await download(url, to: destination, resumption: Self.resumption(), on: transport)

        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        #expect(try await server.stats(id).requests.map(\.status) == [416, 200])
        #expect(values.contains { $0.event == .restarting(.rangeNotSatisfiable) })
    }

    @Test func aWrongDigestFailsAndKeepsNothing() async throws {
        let (_, url) = server.resource("size=\(1 << 20)")
        let destination = directory.url.appending(path: "wrong.bin")
        let transfer = transfers.download(
            TestRequest(url), to: destination, resumption: Self.resumption(sha256: String(repeating: "0", count: 64)))

        let error = try await Self.failure(of: transfer)
        guard case .integrityCheckFailed(let failedURL, let reason, _) = error.fetchKind else {
            Issue.record("expected .integrityCheckFailed, got \(error)")
            return
        }
        #expect(failedURL == url)
        #expect(reason.contains("SHA-256"))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
    }

    @Test func attemptsWithoutProgressAreBoundedByTheRetryPolicy() async throws {
        let destination = directory.url.appending(path: "refused.bin")
        let scheduler = TestScheduler()
        let transfer = transfers.download(
            TestRequest(try #require(URL(string: "http://127.0.0.1:9/nothing"))), to: destination,
            resumption: DownloadResumption(
                retryPolicy: RetryPolicy(maximumAttempts: 3, backoff: Backoff(jitter: 0)), scheduler: scheduler))

        let error = try await Self.failure(of: transfer)
        guard case .attemptsExhausted(let attempts, _, _) = error.fetchKind else {
            Issue.record("expected .attemptsExhausted, got \(error)")
            return
        }
        #expect(attempts == 3)
        #expect(scheduler.delays == [0.5, 1])
    }

    @Test(arguments: SessionTransport.allCases)
    func theAttemptsInAllAreBoundedEvenWhenEachMakesProgress(transport: SessionTransport) async throws {
        // Every connection drops after 10 kB: each attempt gets further, and the whole would take 100 attempts.
        let (id, url) = server.resource("size=1000000&drop=10000")
        let destination = directory.url.appending(path: "budget-\(transport.rawValue).bin")
        let transfer = try transferPerformer(transport).download(
            TestRequest(url), to: destination, resumption: Self.resumption(attempts: 2))

        let error = try await Self.failure(of: transfer)

        guard case .attemptsExhausted(let attempts, _, _) = error.fetchKind else {
            Issue.record("expected .attemptsExhausted, got \(error)")
            return
        }
        #expect(attempts == 20)
        #expect(try await server.stats(id).requests.count == 20)
        // What it got so far stays for a later run.
        let kept =
            try FileManager.default.attributesOfItem(
                atPath: DownloadResumption.partialFile(for: destination).path)[.size] as? NSNumber
        #expect(kept?.intValue == 200_000)
    }

    @Test func anErrorStatusFailsWithTheBodyAndKeepsNothing() async throws {
        let destination = directory.url.appending(path: "missing.json")
        let transfer = transfers.download(
            TestRequest(server.server.url("/users/404")), to: destination, resumption: Self.resumption(),
            errorParser: DecodableErrorParser<APIError>())

        await #expect(throws: APIError(error: true, reason: "no user with id 404")) {
            try await transfer.value
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
    }

    @Test func removingThePartialFilesNeverRemovesADirectoryThere() throws {
        let destination = directory.url.appending(path: "kept.bin")
        let partial = DownloadResumption.partialFile(for: destination)
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: partial.appending(path: "inside.txt"))

        #expect(throws: (any Error).self) { try DownloadResumption.removePartialFiles(for: destination) }

        #expect(try Data(contentsOf: partial.appending(path: "inside.txt")) == Data("kept".utf8))
    }

    @Test func cancellingKeepsThePartialFileForLater() async throws {
        let (_, url) = server.resource("size=\(4 << 20)&stall_at=\(1 << 20)&stall_ms=300000")
        let destination = directory.url.appending(path: "cancelled.bin")
        let call = transfers.download(TestRequest(url, timeout: 600), to: destination, resumption: Self.resumption())
        var progress = call.progress.makeAsyncIterator()
        _ = await progress.next()
        call.cancel()

        let error = try await Self.failure(of: call)
        guard case .cancelled(let request) = error.fetchKind else {
            Issue.record("expected FetchError.cancelled, got \(error)")
            return
        }
        #expect(request?.url == url)
        #expect(FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
        #expect(FileManager.default.fileExists(atPath: directory.url.appending(path: "cancelled.bin.part.json").path))
        try DownloadResumption.removePartialFiles(for: destination)
        #expect(!FileManager.default.fileExists(atPath: DownloadResumption.partialFile(for: destination).path))
    }

    @Test func readsContentRanges() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange(start: 100, end: 199, total: 1000))
        #expect(ContentRange("bytes */1000") == ContentRange(start: nil, end: nil, total: 1000))
        #expect(ContentRange("bytes 5-9/*") == ContentRange(start: 5, end: 9, total: nil))
        #expect(ContentRange("BYTES 0-0/1") == ContentRange(start: 0, end: 0, total: 1))
    }

    @Test(arguments: [
        "items 1-2/3", "bytes x-9/10", "bytes +5-9/10", "bytes 5-+9/10", "bytes 5-9/+10", "bytes -5-9/10",
        "bytes 9-5/10", "bytes 5-10/10", "bytes 5-9/5", "bytes 5/10", "bytes 5-/10", "bytes -9/10", "bytes */*",
        "bytes 0-99999999999999999999/*", "bytes 0-9/99999999999999999999", "bytes 1e3-9/10", "bytes 5 - 9/10",
        "bytes 5-9/10/11", "bytes 5-9",
    ])
    func rejectsContentRangesOutsideTheGrammar(value: String) {
        #expect(ContentRange(value) == nil)
    }

    @Test func aRangeIsAcceptedOnlyWhereThePartialFileEndsWithAConsistentLengthAndTotal() {
        let range = ContentRange(start: 100, end: 199, total: 1000)
        #expect(range.bodyEnd(continuing: 100, contentLength: 100, knownTotal: 1000) == 200)
        #expect(range.bodyEnd(continuing: 100, contentLength: nil, knownTotal: nil) == 200)
        #expect(range.bodyEnd(continuing: 99, contentLength: 100, knownTotal: 1000) == nil)
        #expect(range.bodyEnd(continuing: 100, contentLength: 101, knownTotal: 1000) == nil)
        #expect(range.bodyEnd(continuing: 100, contentLength: 100, knownTotal: 999) == nil)
        #expect(
            ContentRange(start: nil, end: nil, total: 1000).bodyEnd(continuing: 0, contentLength: 0, knownTotal: nil)
                == nil)
        let last = ContentRange(start: 0, end: .max, total: nil)
        #expect(last.bodyEnd(continuing: 0, contentLength: nil, knownTotal: nil) == nil)
    }
}
