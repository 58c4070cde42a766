import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download's attempts report to one set of observers, and each attempt that resumes is announced with the byte
/// it goes on from.
@Suite struct ResumableDownloadEventTests {
    let server: ResumeServer
    let directory: TemporaryDirectory

    init() throws {
        server = try ResumeServer()
        directory = try TemporaryDirectory()
    }

    static func resumption(attempts: Int) -> DownloadResumption {
        DownloadResumption(retryPolicy: RetryPolicy(maximumAttempts: attempts), scheduler: TestScheduler())
    }

    @Test(arguments: SessionTransport.allCases)
    func eachResumedAttemptIsReportedWithItsOffsetBeforeItStarts(on transport: SessionTransport) async throws {
        let size = 6 << 20
        let (id, url) = server.resource("size=\(size)&drop=\(2 << 20)")
        let events = Captured<FetchEvent>()
        let performer = try transferPerformer(transport).with(.observe(events.capture))

        let response = try await performer.download(
            TestRequest(url), to: directory.url.appending(path: "dropped.bin"), resumption: Self.resumption(attempts: 3)
        ).value

        #expect(response.status == 206)
        let resumed = events.values.filter { $0.name == .transferResumed }
        #expect(resumed.map(\.offset) == [2 << 20, 4 << 20])
        #expect(resumed.allSatisfy { $0.request.url == url })
        let names = events.values.map(\.name.description)
        // Each attempt's body ends (streamEnded: the drop) before the next attempt resumes.
        let attempt = ["started", "attemptStarted", "attemptFinished", "finished", "streamEnded"]
        #expect(names == attempt + ["transferResumed"] + attempt + ["transferResumed"] + attempt)
        let ends = events.values.filter { $0.name == .streamEnded }
        #expect(ends.map { $0.error != nil } == [true, true, false], "two bodies dropped, the last one whole")
        #expect(ends.map(\.bytes) == [2 << 20, 2 << 20, 2 << 20])
        // One set of observers across the download's calls: the attempts count on.
        #expect(events.values.filter { $0.name == .attemptStarted }.map(\.attempt) == [1, 2, 3])
        #expect(try await server.stats(id).requests.map(\.range) == [nil, "bytes=2097152-", "bytes=4194304-"])
    }

    @Test func aDownloadThatResumesAnEarlierRunsPartialFileReportsItFirst() async throws {
        let size = 3 << 20
        let (_, url) = server.resource("size=\(size)&drop=\(1 << 20)&drops=1")
        let destination = directory.url.appending(path: "later.bin")
        let session = try transferPerformer(.urlSession)
        let firstRun = session.download(TestRequest(url), to: destination, resumption: Self.resumption(attempts: 1))
        await #expect(throws: FetchError.self) { try await firstRun.value }

        let events = Captured<FetchEvent>()
        let response = try await session.with(.observe(events.capture)).download(
            TestRequest(url), to: destination, resumption: Self.resumption(attempts: 1)
        ).value

        #expect(response.status == 206)
        #expect(
            events.values.map(\.name.description) == [
                "transferResumed", "started", "attemptStarted", "attemptFinished", "finished", "streamEnded",
            ])
        #expect(events.values.first?.offset == 1 << 20)
    }

    @Test func aDownloadThatNeverResumesReportsNoResumption() async throws {
        let (_, url) = server.resource("size=\(1 << 20)")
        let events = Captured<FetchEvent>()
        _ = try await transferPerformer(.urlSession).with(.observe(events.capture)).download(
            TestRequest(url), to: directory.url.appending(path: "whole.bin"), resumption: Self.resumption(attempts: 3)
        ).value

        #expect(
            events.values.map(\.name.description) == [
                "started", "attemptStarted", "attemptFinished", "finished", "streamEnded",
            ])
    }
}
