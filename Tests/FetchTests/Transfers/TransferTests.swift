import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the test server's `/upload/…` route received.
struct Received: Decodable, Parsable {
    let received: Int
}

/// The performer a transfer test runs on: a `Session` of its own on `transport`. The one place the transfer suites
/// make a session, so that a change to `Session`'s initialisers touches only this line.
func transferPerformer(_ transport: SessionTransport) throws -> Session {
    try makeSession(transport)
}

/// Every progress value of `transfer`, then its value.
func values<Value>(of transfer: Transfer<Value>) async throws -> (Value, [TransferProgress]) {
    var values: [TransferProgress] = []
    for await progress in transfer.progress {
        values.append(progress)
    }
    return (try await transfer.value, values)
}

/// Downloads and uploads through a `Session`'s pipeline, on each transport.
@Suite struct TransferTests {
    let server: TestServer
    let directory: TemporaryDirectory

    init() throws {
        server = try TestServer.running()
        directory = try TemporaryDirectory("fetch-transfers")
    }

    /// A body whose first MiB comes at once and the rest 5 minutes later: long enough for a test to cancel it midway
    /// even when the whole suite keeps Swift's concurrency pool busy (on a loaded 2-core machine, 30 s once was not).
    /// Its requests set a 600 s timeout: under Thread Sanitizer the transports' default 60 s idle timeout once ended
    /// the download before the test could cancel it.
    static func stalling(_ server: TestServer) -> URL {
        server.url("/resume/\(UUID().uuidString)?size=\(4 << 20)&stall_at=\(1 << 20)&stall_ms=300000")
    }

    static func isIncreasing(_ values: [TransferProgress]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes }
    }

    @Test(arguments: SessionTransport.allCases)
    func downloadsToAFileWithIncreasingProgress(transport: SessionTransport) async throws {
        let size = 3 << 20
        let destination = directory.url.appending(path: "large.bin")

        let (response, progress) = try await values(
            of: try transferPerformer(transport).download(TestRequest(server.url("/large/\(size)")), to: destination))

        #expect(response.status == 200)
        #expect(response.data == nil)
        let contents = try Data(contentsOf: destination)
        #expect(contents.count == size)
        #expect(contents.prefix(300) == Data((0..<300).map { UInt8($0 % 251) }))
        #expect(progress.last == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
        #expect(Self.isIncreasing(progress))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["large.bin"])
    }

    @Test(arguments: SessionTransport.allCases, [false, true])
    func aDownloadRedirectedToAnotherOriginCarriesNoCredentials(
        transport: SessionTransport,
        crossOrigin: Bool
    ) async throws {
        let destination = directory.url.appending(path: "echo.json")
        let target = crossOrigin ? server.otherOriginURL("/echo/download") : server.url("/echo/download")
        var components = try #require(URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        let request = TestRequest(
            try #require(components.url),
            headers: ["Authorization": "Bearer secret-token", "Cookie": "session=s3cr3t"]
        )
        _ = try await transferPerformer(transport).download(request, to: destination).value
        let echo = try JSONDecoder().decode(Echo.self, from: Data(contentsOf: destination))
        #expect(echo.path == "/echo/download")
        #expect(echo.headers["authorization"] == (crossOrigin ? nil : "Bearer secret-token"))
        #expect(echo.headers["cookie"] == (crossOrigin ? nil : "session=s3cr3t"))
    }

    @Test(arguments: SessionTransport.allCases)
    func anErrorStatusFailsWithTheBodyThroughTheErrorParserAndWritesNoFile(transport: SessionTransport) async throws {
        let destination = directory.url.appending(path: "missing.json")
        let download = try transferPerformer(transport).download(
            TestRequest(server.url("/users/404")), to: destination, errorParser: DecodableErrorParser<APIError>())

        await #expect(throws: APIError(error: true, reason: "no user with id 404")) {
            try await download.value
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test(arguments: SessionTransport.allCases)
    func anErrorBodyOfUpToOneMebibyteReachesTheErrorParser(transport: SessionTransport) async throws {
        struct BodyLength: ErrorParsing {
            struct Failure: Error, Equatable {
                let length: Int
            }
            func parseError(from response: Response) -> (any Error)? {
                Failure(length: response.data?.count ?? 0)
            }
        }
        let download = try transferPerformer(transport).download(
            TestRequest(server.url("/status/500/\(2 << 20)")), to: directory.url.appending(path: "error.bin"),
            errorParser: BodyLength())

        await #expect(throws: BodyLength.Failure(length: 1 << 20)) { try await download.value }
    }

    @Test(arguments: SessionTransport.allCases)
    func cancellingADownloadEndsItOnceWithCancelledNamingTheRequestAndLeavesNoFile(
        transport: SessionTransport
    ) async throws {
        let request = TestRequest(Self.stalling(server), timeout: 600)
        let download = try transferPerformer(transport).download(
            request, to: directory.url.appending(path: "cancelled.bin"))
        var progress = download.progress.makeAsyncIterator()
        _ = await progress.next()

        download.cancel()
        download.cancel()

        let error = try await #require(throws: FetchError.self) { try await download.value }
        guard case .cancelled(let named) = error.fetchKind else {
            Issue.record("expected FetchError.cancelled, got \(error)")
            return
        }
        #expect(named?.url == request.url)
        while await progress.next() != nil {}
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func cancellingTheAwaitingTaskCancelsTheDownload() async throws {
        let download = try transferPerformer(.urlSession).download(
            TestRequest(Self.stalling(server), timeout: 600), to: directory.url.appending(path: "task.bin"))
        let task = Task { try await download.value }

        var iterator = download.progress.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()

        await #expect(throws: FetchError.self) { try await task.value }
    }

    @Test(arguments: SessionTransport.allCases)
    func uploadsAFileAndReportsItsBytes(transport: SessionTransport) async throws {
        let size = 4 << 20
        let file = directory.url.appending(path: "upload.bin")
        try Data(repeating: 7, count: size).write(to: file)

        let (received, progress) = try await values(
            of: try transferPerformer(transport).upload(
                TestRequest(server.url("/upload/\(UUID().uuidString)"), method: .post), fromFile: file,
                as: Received.self))

        #expect(received.received == size)
        #expect(progress.last == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
        #expect(Self.isIncreasing(progress))
    }

    @Test(arguments: SessionTransport.allCases)
    func anUploadSendsTheFileInsteadOfTheRequestsBody(transport: SessionTransport) async throws {
        let file = directory.url.appending(path: "small.txt")
        try Data("hello".utf8).write(to: file)

        let echo = try await transferPerformer(transport).upload(
            TestRequest(server.url("/echo/upload"), method: .put, body: Data("ignored".utf8)), fromFile: file,
            as: Echo.self
        ).value

        #expect(echo.method == "PUT")
        #expect(echo.body == "hello")
    }

    @Test func uploadingAFileThatIsNotThereFailsBeforeAnythingIsSent() async throws {
        let path = "/upload/\(UUID().uuidString)"
        let missing = directory.url.appending(path: "missing.bin")
        let upload = try transferPerformer(.urlSession).upload(
            TestRequest(server.url(path), method: .post), fromFile: missing, as: Received.self)

        let error = try await #require(throws: FetchError.self) { try await upload.value }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected FetchError.invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("POST \(server.url(path).absoluteString)"), "\(reason)")
        #expect(reason.contains(missing.path), "\(reason)")
        #expect(try await server.hits(path) == 0)
    }

    @Test(arguments: SessionTransport.allCases, ["directory", "directory/", "directory/sub/..", "link"])
    func uploadingADirectoryALinkOrADotDotPathFailsBeforeAnythingIsSent(
        transport: SessionTransport, source: String
    ) async throws {
        let parent = directory.url.appending(path: "upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: parent.appending(path: "directory/sub"), withIntermediateDirectories: true)
        let secret = parent.appending(path: "secret.txt")
        try Data("not for upload".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(at: parent.appending(path: "link"), withDestinationURL: secret)
        let path = "/upload/\(UUID().uuidString)"
        let file = parent.appending(path: source)

        let upload = try transferPerformer(transport).upload(
            TestRequest(server.url(path), method: .post), fromFile: file, as: Received.self)

        let error = try await #require(throws: FetchError.self) { try await upload.value }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected FetchError.invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("POST \(server.url(path).absoluteString): cannot upload \(file.path)"), "\(reason)")
        let why = ["it is a directory", "has a \"..\" component", "it is a symbolic link"]
        #expect(why.contains { reason.contains($0) }, "\(reason)")
        #expect(try await server.hits(path) == 0)
    }
}
