import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signs each request with its own `Range`: what a request-signing middleware does, seen by the server.
struct RangeSigner: Middleware {
    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        var signed = AdaptedRequest(request)
        signed.headers["X-Signature"] = "signed " + (signed.headers["Range"] ?? "whole")
        next(signed, completion: completion)
    }
}

/// Transfers are calls through the performer's pipeline: its middlewares see every attempt, and the doubles of
/// FetchTesting answer them without a network.
@Suite struct TransferPipelineTests {
    let server: ResumeServer
    let directory: TemporaryDirectory

    init() throws {
        server = try ResumeServer()
        directory = try TemporaryDirectory("fetch-transfer-pipeline")
    }

    @Test(arguments: SessionTransport.allCases)
    func aSigningMiddlewareSignsEveryAttemptOfAResumedDownloadAfresh(transport: SessionTransport) async throws {
        let size = 3 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(1 << 20)")
        let destination = directory.url.appending(path: "signed.bin")

        let response = try await transferPerformer(transport).with(RangeSigner()).download(
            TestRequest(url), to: destination, resumption: ResumableDownloadTests.resumption()
        ).value

        #expect(response.status == 206)
        #expect(try SHA256.hexDigest(ofFile: destination) == (try await server.digest(size: size)))
        let stats = try await server.stats(id)
        #expect(
            stats.requests.map(\.signature) == [
                "signed whole", "signed bytes=\(1 << 20)-", "signed bytes=\(2 << 20)-",
            ])
    }

    @Test(arguments: SessionTransport.allCases)
    func aRetryMiddlewareRetriesADownloadsFailedHead(transport: SessionTransport) async throws {
        let path = "/flaky/download-\(UUID().uuidString)"
        let destination = directory.url.appending(path: "retried.json")
        let performer = try transferPerformer(transport).with(
            .retry(RetryPolicy(maximumAttempts: 3, backoff: Backoff(jitter: 0)), scheduler: TestScheduler()))

        let response = try await performer.download(
            TestRequest(server.server.url(path + "?fail=2")), to: destination
        ).value

        #expect(response.status == 200)
        struct Attempt: Decodable {
            let attempt: Int
        }
        #expect(try JSONDecoder().decode(Attempt.self, from: Data(contentsOf: destination)).attempt == 3)
    }

    @Test func aRetryMiddlewareThatGivesUpFailsTheDownloadThroughTheErrorParserAndWritesNoFile() async throws {
        let path = "/flaky/exhausted-\(UUID().uuidString)"
        let performer = try transferPerformer(.urlSession).with(
            .retry(RetryPolicy(maximumAttempts: 2, backoff: Backoff(jitter: 0)), scheduler: TestScheduler()))

        let download = performer.download(
            TestRequest(server.server.url(path + "?fail=5")), to: directory.url.appending(path: "never.json"),
            errorParser: DecodableErrorParser<APIError>())

        let error = try await #require(throws: FetchError.self) { try await download.value }
        guard case .attemptsExhausted(2, let lastError, _) = error.fetchKind else {
            Issue.record("expected .attemptsExhausted after 2 attempts, got \(error)")
            return
        }
        #expect(lastError as? APIError == APIError(error: true, reason: "failure 2 of 5"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aMockPerformerAnswersADownloadWithItsBodyInTheFileAndProgress() async throws {
        let body = Data("the scripted body".utf8)
        let mock = MockPerformer { _ in MockResponse(status: 200, data: body) }
        let destination = directory.url.appending(path: "mocked.txt")

        let (response, progress) = try await values(
            of: mock.download(TestRequest("https://api.example.com/files/1"), to: destination))

        #expect(response.status == 200)
        #expect(try Data(contentsOf: destination) == body)
        #expect(progress.last?.completedBytes == Int64(body.count))
    }

    @Test func aMockPerformersErrorStatusFailsTheDownloadThroughTheErrorParser() async throws {
        let mock = MockPerformer { _ in .json(#"{"error":true,"reason":"gone"}"#, status: 410) }
        let download = mock.download(
            TestRequest("https://api.example.com/files/1"), to: directory.url.appending(path: "gone.json"),
            errorParser: DecodableErrorParser<APIError>())

        await #expect(throws: APIError(error: true, reason: "gone")) { try await download.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aSpyPerformerSeesAnUploadAndItsAnswerIsParsed() async throws {
        let spy = SpyPerformer()
        let file = directory.url.appending(path: "photo.jpg")
        try Data(repeating: 0xFF, count: 1000).write(to: file)

        let upload = spy.upload(
            TestRequest("https://api.example.com/photos", method: .post), fromFile: file, as: Received.self)
        let call = try #require(spy.pendingCalls.first)
        #expect(call.request.url.absoluteString == "https://api.example.com/photos")
        #expect(call.request.method == .post)
        spy.complete(with: .json(#"{"received":1000}"#))

        let (received, progress) = try await values(of: upload)
        #expect(received.received == 1000)
        #expect(progress == [TransferProgress(completedBytes: 1000, expectedBytes: 1000)])
    }
}
