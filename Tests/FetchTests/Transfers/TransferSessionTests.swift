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

/// Serialized: transfers that share a server and a directory, one at a time.
@Suite(.serialized) struct TransferSessionTests {
    let server: TestServer
    let transfers = TransferSession(configuration: .ephemeral, callbackQueue: OperationQueue())
    let directory: URL

    init() throws {
        server = try TestServer.running()
        directory = FileManager.default.temporaryDirectory.appending(path: "fetch-transfers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @Test func downloadsThroughTheCallbackFormWithMonotonicProgress() async throws {
        let size = 3 << 20
        let destination = directory.appending(path: "callback.bin")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let progress = Captured<TransferProgress>()
        let results = Captured<Result<Response, any Error>>()

        transfers.download(
            TestRequest(server.url("/large/\(size)")), to: destination, progress: progress.capture,
            completion: results.capture)

        let response = try await results.first().get()
        #expect(response.status == 200)
        #expect(response.data == nil || response.data?.isEmpty == true)
        let contents = try Data(contentsOf: destination)
        #expect(contents.count == size)
        #expect(contents.prefix(300) == Data((0..<300).map { UInt8($0 % 251) }))
        let values = progress.values
        #expect(values.last?.completedBytes == Int64(size))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
    }

    @Test(arguments: [false, true])
    func aDownloadRedirectedToAnotherOriginCarriesNoCredentials(crossOrigin: Bool) async throws {
        let destination = directory.appending(path: "echo.json")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let target = crossOrigin ? server.otherOriginURL("/echo/download") : server.url("/echo/download")
        var components = try #require(URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "to", value: target.absoluteString)]
        let request = TestRequest(
            try #require(components.url),
            headers: ["Authorization": "Bearer secret-token", "Cookie": "session=s3cr3t"]
        )
        _ = try await transfers.download(request, to: destination).value
        let echo = try JSONDecoder().decode(Echo.self, from: Data(contentsOf: destination))
        #expect(echo.path == "/echo/download")
        #expect(echo.headers["authorization"] == (crossOrigin ? nil : "Bearer secret-token"))
        #expect(echo.headers["cookie"] == (crossOrigin ? nil : "session=s3cr3t"))
    }

    @Test func errorStatusFailsWithTheBodyAndWritesNoFile() async throws {
        let destination = directory.appending(path: "missing.json")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let download = transfers.download(
            TestRequest(server.url("/users/404")), to: destination, errorParser: DecodableErrorParser<APIError>())

        await #expect(throws: APIError(error: true, reason: "no user with id 404")) {
            try await download.value
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func cancellingADownloadCompletesItOnceWithCancelled() async throws {
        let destination = directory.appending(path: "cancelled.bin")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let results = Captured<Result<Response, any Error>>()
        let progress = Captured<TransferProgress>()

        let call = transfers.download(
            TestRequest(server.url("/large/\(64 << 20)/\(UUID().uuidString)?stall=5000")), to: destination,
            progress: progress.capture, completion: results.capture)
        _ = try await progress.first()
        call.cancel()
        call.cancel()

        guard case .cancelled = try fetchError(try await results.first()) else {
            Issue.record("expected FetchError.cancelled, got \(results.values)")
            return
        }
        #expect(results.values.count == 1)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func cancellingTheAwaitingTaskCancelsTheDownload() async throws {
        let destination = directory.appending(path: "task.bin")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let download = transfers.download(TestRequest(server.url("/large/\(64 << 20)?stall=5000")), to: destination)
        let task = Task { try await download.value }

        var iterator = download.progress.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()

        await #expect(throws: FetchError.self) { try await task.value }
    }

    @Test func uploadsAFileWithMonotonicProgress() async throws {
        let size = 4 << 20
        let file = directory.appending(path: "upload.bin")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        try Data(repeating: 7, count: size).write(to: file)
        let upload: Transfer<Received> = transfers.upload(
            TestRequest(server.url("/upload/\(UUID().uuidString)"), method: .post), fromFile: file)

        var values: [TransferProgress] = []
        for await progress in upload.progress {
            values.append(progress)
        }
        let received = try await upload.value

        #expect(received.received == size)
        let last = try #require(values.last)
        #expect(last.completedBytes == Int64(size))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
    }

    @Test func uploadsThroughTheCallbackForm() async throws {
        let file = directory.appending(path: "small.txt")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        try Data("hello".utf8).write(to: file)
        let results = Captured<Result<Echo, any Error>>()
        let progress = Captured<TransferProgress>()

        transfers.upload(
            TestRequest(server.url("/echo/upload"), method: .put), fromFile: file, progress: progress.capture,
            completion: results.capture)

        let echo = try await results.first().get()
        #expect(echo.method == "PUT")
        #expect(echo.body == "hello")
        #expect(progress.values.last?.completedBytes == 5)
    }
}
