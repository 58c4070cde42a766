import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A 500 MB streamed body read by a consumer slower than the network, with the process's memory measured.
///
/// Measured in a process of its own, as `LargeUploadTests` does: the test runs this test binary again, filtered to
/// this suite, with `FETCH_MEASURE_STREAM=1`, and that run streams the body and checks the memory.
@Suite(.enabled(if: HeavyTests.areEnabled, HeavyTests.reason)) struct LargeStreamTests {
    static let bytes = 500 * 1_000_000
    /// The consumer's pace: well below loopback's, so that it falls behind the network from the first chunk.
    static let consumerBytesPerSecond = 80.0 * 1_000_000
    static let childVariable = "FETCH_MEASURE_STREAM"

    @Test(.enabled(if: MemoryMeter.isAvailable, "needs /proc/self/status and /proc/self/clear_refs (Linux)"))
    func aSlowConsumerReadsA500MBStreamWhileMemoryGrowsByLessThan32MB() async throws {
        if ChildSuiteRun.isChild(Self.childVariable) {
            try await streamAndMeasure()
        } else {
            let output = try await ChildSuiteRun.run(
                suite: "LargeStreamTests", variable: Self.childVariable, timeout: .seconds(90))
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("streamed ") }) {
                print(line)
            }
        }
    }

    func streamAndMeasure() async throws {
        let server = try TestServer.running()
        let session = makeSession()
        let meter = try MemoryMeter()
        let started = Date()
        let stream = try await session.stream(TestRequest(server.url("/stream/generated/\(Self.bytes)")))
        var received = 0
        var mismatches = 0
        for try await chunk in stream {
            // The byte at offset i is i % 251: check the first byte of every chunk.
            if chunk.first != UInt8(received % 251) {
                mismatches += 1
            }
            received += chunk.count
            let ahead = Double(received) / Self.consumerBytesPerSecond - Date().timeIntervalSince(started)
            if ahead > 0 {
                try await Task.sleep(for: .seconds(ahead))
            }
        }
        let growth = try meter.peakGrowth()
        let seconds = Date().timeIntervalSince(started)
        print("streamed \(received / 1_000_000) MB in \(Int(seconds)) s; memory grew by \(growth / 1_000_000) MB")
        #expect(received == Self.bytes)
        #expect(mismatches == 0)
        #expect(growth < 32 * 1_000_000, "memory grew by \(growth / 1_000_000) MB streaming 500 MB")
    }
}
