import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transfer's timeout ends the whole exchange at its deadline, however steadily the server keeps sending: the
/// loopback server's `/transfer-endless` never pauses long enough for an idle timeout, and would only close after
/// 10 s.
@Suite struct TransferTimeoutTests {
    let server: TestServer
    let directory: TemporaryDirectory

    init() throws {
        server = try TestServer.running()
        directory = try TemporaryDirectory()
    }

    var endless: URL { server.url("/transfer-endless?seconds=10&chunk=65536&interval_ms=10") }

    static func expectTimedOut(_ error: any Error, after timeout: TimeInterval) {
        guard case .timedOut(_, let seconds) = error.fetchKind else {
            Issue.record("expected FetchError.timedOut, got \(error)")
            return
        }
        #expect(seconds == timeout)
    }

    @Test(arguments: SessionTransport.allCases, [0.5, 1])
    func aDownloadOfAnEndlessBodyEndsAtItsTimeout(transport: SessionTransport, timeout: TimeInterval) async throws {
        let destination = directory.url.appending(path: "endless.bin")
        let download = try transferPerformer(transport).download(
            TestRequest(endless, timeout: timeout), to: destination)

        let error = try await #require(throws: (any Error).self) { try await download.value }

        Self.expectTimedOut(error, after: timeout)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test(arguments: SessionTransport.allCases, [0.5, 1])
    func anUploadWhoseResponseNeverEndsEndsAtItsTimeout(
        transport: SessionTransport,
        timeout: TimeInterval
    ) async throws {
        let file = directory.url.appending(path: "upload.bin")
        try Data(repeating: 7, count: 1000).write(to: file)
        let upload: Transfer<Data> = try transferPerformer(transport).upload(
            TestRequest(endless, method: .post, timeout: timeout), fromFile: file)

        let error = try await #require(throws: (any Error).self) { try await upload.value }

        Self.expectTimedOut(error, after: timeout)
    }

    @Test(arguments: [0.5, 1])
    func eachAttemptOfAResumableDownloadEndsAtItsTimeoutAndAttemptsThatKeepNothingAreBounded(
        timeout: TimeInterval
    ) async throws {
        let destination = directory.url.appending(path: "endless-resumable.bin")
        let download = try transferPerformer(.urlSession).download(
            TestRequest(endless, timeout: timeout), to: destination,
            resumption: ResumableDownloadTests.resumption(attempts: 2))

        let error = try await ResumableDownloadTests.failure(of: download)

        guard case .attemptsExhausted(let attempts, let lastError, _) = error.fetchKind else {
            Issue.record("expected .attemptsExhausted, got \(error)")
            return
        }
        #expect(attempts == 2)
        Self.expectTimedOut(lastError, after: timeout)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
