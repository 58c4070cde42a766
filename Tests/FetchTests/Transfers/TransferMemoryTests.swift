import Fetch
import FetchTesting
import Foundation
import Testing

/// A 200 MiB download in flat memory, measured in a process of its own (``ChildSuiteRun``): in the full suite the
/// tests running beside it allocate too, and the process's resident memory would count theirs.
@Suite struct TransferMemoryTests {
    static let childVariable = "FETCH_MEASURE_TRANSFER_MEMORY"

    let server: TestServer
    let directory: URL

    init() throws {
        server = try TestServer.running()
        directory = FileManager.default.temporaryDirectory.appending(path: "fetch-transfers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    // Thread Sanitizer's shadow memory grows with every byte touched, so the bound would measure TSan, not Fetch.
    @Test(
        .enabled(if: ChildSuiteRun.isAvailable, "needs /proc/self/status and /proc/self/exe (Linux)"),
        .disabled(if: ThreadSanitizer.isActive, "its memory bound measures Thread Sanitizer's shadow memory")
    )
    func downloadsTwoHundredMegabytesInFlatMemoryOnEveryTransport() async throws {
        guard ChildSuiteRun.isChild(Self.childVariable) else {
            try await ChildSuiteRun.run(
                suite: "TransferMemoryTests", variable: Self.childVariable, timeout: .seconds(120))
            return
        }
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        for transport in SessionTransport.allCases {
            try await downloadsTwoHundredMegabytesInFlatMemory(on: transport)
        }
    }

    func downloadsTwoHundredMegabytesInFlatMemory(on transport: SessionTransport) async throws {
        let size = 200 << 20
        let destination = directory.appending(path: "large-\(transport.rawValue).bin")
        let baseline = try #require(Self.residentBytes())
        // At 200 MiB/s, faster than most networks, so that the measurement is of Fetch rather than of a CPU-starved
        // process that receives from loopback faster than it writes.
        let download = try transferPerformer(transport).download(
            TestRequest(server.url("/large/\(size)/\(UUID().uuidString)?rate=200")), to: destination)

        var values: [TransferProgress] = []
        var peak = baseline
        for await progress in download.progress {
            values.append(progress)
            if values.count % 16 == 0 {
                peak = max(peak, Self.residentBytes() ?? 0)
            }
        }
        peak = max(peak, Self.residentBytes() ?? 0)
        let response = try await download.value

        #expect(response.status == 200)
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
        #expect((attributes[.size] as? Int) == size)
        let growth = peak - baseline
        #expect(
            growth < 80 << 20,
            "memory grew by \(growth >> 20) MiB while downloading \(size >> 20) MiB on \(transport.rawValue)")
        try FileManager.default.removeItem(at: destination)
        let last = try #require(values.last)
        #expect(last == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
        #expect(values.count > 2)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
        #expect(values.allSatisfy { $0.expectedBytes == Int64(size) })
    }

    /// The process's resident memory in bytes, from `/proc/self/status` (`nil` where there is no `/proc`).
    static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),  // nil: not Linux
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else {
            return nil
        }
        return kilobytes * 1024
    }
}
