import Fetch
import FetchTesting
import Foundation
import Testing

/// Resumable downloads that need processes of their own: a 100 MB download whose memory is measured away from the
/// other tests' (as ``LargeUploadTests`` does), and a download whose process is killed midway and finished by the
/// next one.
///
/// Each test runs this test binary again, filtered to itself, with `FETCH_RESUME_CHILD` set: that run is the child,
/// which downloads what the environment says and prints its progress: each event, and each MiB boundary it passes.
@Suite(.enabled(if: HeavyTests.areEnabled, HeavyTests.reason)) struct ResumableDownloadProcessTests {
    static let childVariable = "FETCH_RESUME_CHILD"
    static let hundredMegabytes = 100 << 20

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    @Test(.enabled(if: MemoryMeter.isAvailable, "needs /proc/self/status and /proc/self/clear_refs (Linux)"))
    func aHundredMegabytesDroppedEveryTenDownloadWholeInFlatMemory() async throws {
        if environment[Self.childVariable] != nil {
            return try await downloadAsChild(measuresMemory: true)
        }
        let server = try ResumeServer()
        let (id, url) = server.resource("size=\(Self.hundredMegabytes)&drop=\(10 << 20)")
        let directory = try TemporaryDirectory()
        let destination = directory.url.appending(path: "hundred.bin")
        let digest = try await server.digest(size: Self.hundredMegabytes)

        let child = try Self.child(
            "aHundredMegabytesDroppedEveryTenDownloadWholeInFlatMemory", url, destination, digest)
        let finished = try await child.finish(within: .seconds(240))

        #expect(finished.status == 0, "the downloading run failed:\n\(finished.output)")
        #expect(finished.output.contains("Test run with 1 test"), "the child ran no test:\n\(finished.output)")
        let stats = try await server.stats(id)
        #expect(stats.sent <= Self.hundredMegabytes + Self.hundredMegabytes / 10)
        #expect(stats.requests.count == 10)
        #expect(FileSize.of(destination) == Int64(Self.hundredMegabytes))
    }

    @Test func aDownloadKilledMidwayIsFinishedByTheNextProcess() async throws {
        if environment[Self.childVariable] != nil {
            return try await downloadAsChild(measuresMemory: false)
        }
        let size = 8 << 20
        let stallAt = 3 << 20
        let server = try ResumeServer()
        let (id, url) = server.resource("size=\(size)&stall_at=\(stallAt)&stall_ms=30000")
        let directory = try TemporaryDirectory()
        let destination = directory.url.appending(path: "killed.bin")
        let digest = try await server.digest(size: size)
        let test = "aDownloadKilledMidwayIsFinishedByTheNextProcess"

        let first = try Self.child(test, url, destination, digest)
        // The server stalls at 3 MiB; the last MiB before it may still be on its way through the client.
        try await first.waitForProgress(atLeast: Int64(stallAt - (1 << 20)), within: .seconds(60))
        first.kill()
        _ = try await first.finish(within: .seconds(30))
        let kept = try #require(FileSize.of(DownloadResumption.partialFile(for: destination)))
        #expect(kept >= Int64(stallAt - (1 << 20)) && kept <= Int64(stallAt))
        #expect(FileManager.default.fileExists(atPath: destination.path + ".part.json"))

        let second = try Self.child(test, url, destination, digest)
        let finished = try await second.finish(within: .seconds(60))

        #expect(finished.status == 0, "the second run failed:\n\(finished.output)")
        #expect(finished.output.contains("EVENT \(kept) resuming"), "no resumption:\n\(finished.output)")
        let stats = try await server.stats(id)
        #expect(stats.requests.map(\.range) == [nil, "bytes=\(kept)-"])
        #expect(stats.sent == size + stallAt - Int(kept))
        #expect(FileSize.of(destination) == Int64(size))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part.json"))
    }

    /// Starts this binary again as the child that runs `test`.
    static func child(_ test: String, _ url: URL, _ destination: URL, _ sha256: String) throws -> ChildTestRun {
        try ChildTestRun(
            filter: "ResumableDownloadProcessTests/\(test)",
            environment: [
                childVariable: "1",
                "FETCH_RESUME_URL": url.absoluteString,
                "FETCH_RESUME_DESTINATION": destination.path,
                "FETCH_RESUME_SHA256": sha256,
            ])
    }

    /// The child's side: downloads the environment's URL, printing progress, and checks its memory if asked.
    func downloadAsChild(measuresMemory: Bool) async throws {
        let url = try #require(environment["FETCH_RESUME_URL"].flatMap(URL.init(string:)))
        let destination = URL(fileURLWithPath: try #require(environment["FETCH_RESUME_DESTINATION"]))
        let transfers = try transferPerformer(.urlSession)
        let meter = measuresMemory ? try MemoryMeter() : nil
        let transfer = transfers.download(
            TestRequest(url), to: destination,
            resumption: DownloadResumption(
                retryPolicy: RetryPolicy(backoff: Backoff(initialDelay: 0.01)),
                expectedSHA256: environment["FETCH_RESUME_SHA256"]))
        var reportedMiB: Int64 = 0
        for await value in transfer.progress {
            if let event = value.event {
                Self.say("EVENT \(value.completedBytes) \(event)")
            }
            if value.completedBytes >> 20 > reportedMiB {
                reportedMiB = value.completedBytes >> 20
                Self.say("PROGRESS \(value.completedBytes)")
            }
        }
        _ = try await transfer.value
        if let meter {
            let growth = try meter.peakGrowth()
            Self.say("PEAK-GROWTH \(growth)")
            #expect(growth < 40 << 20, "memory grew by \(growth >> 20) MiB while downloading 100 MiB")
        }
    }

    /// Writes a line to standard output at once: `print` buffers when the output is a pipe.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// File sizes, for the checks above.
private enum FileSize {
    static func of(_ url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size].flatMap { ($0 as? NSNumber)?.int64Value }
    }
}
