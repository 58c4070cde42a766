import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A multipart upload of a file larger than 50 MB, end to end, with the process's memory measured throughout.
///
/// The other tests of this process, running in parallel, raise its memory by tens of megabytes at times, so the
/// upload is measured in a process of its own: the test runs this test binary again, filtered to this suite, with
/// `FETCH_MEASURE_UPLOAD=1`, and that run does the upload and checks the memory.
@Suite struct LargeUploadTests {
    static let megabytes = 60
    static let childVariable = "FETCH_MEASURE_UPLOAD"

    // Thread Sanitizer's shadow memory grows with every byte touched, so the bound would measure TSan, not Fetch.
    @Test(
        .enabled(if: MemoryMeter.isAvailable, "needs /proc/self/status and /proc/self/clear_refs (Linux)"),
        .disabled(if: ThreadSanitizer.isActive, "its memory bound measures Thread Sanitizer's shadow memory")
    )
    func aLargeFileIsStreamedWhileMemoryStaysFarBelowItsSize() async throws {
        if ChildSuiteRun.isChild(Self.childVariable) {
            try await uploadAndMeasure()
        } else {
            try await ChildSuiteRun.run(suite: "LargeUploadTests", variable: Self.childVariable, timeout: .seconds(120))
        }
    }

    func uploadAndMeasure() async throws {
        let server = try TestServer.running()
        let session = makeSession()
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "large.bin")
        let size = try Self.write(megabytes: Self.megabytes, to: file)
        let source: FileDigest = try await session.perform(
            APIRequest(server.url("/requests/file-digest")).query("path", file.path))
        try #require(source.size == size)

        let meter = try MemoryMeter()
        let upload = APIRequest(server.url("/requests/upload-digest"))
            .method(.post)
            .multipartBody(
                MultipartBody()
                    .field("album", "Holiday 2026")
                    .file("video", contentsOf: file, filename: "clip.mp4", contentType: "video/mp4")
            )
            .timeout(60)
        let digest: UploadDigest = try await session.perform(upload)
        let growth = try meter.peakGrowth()

        #expect(digest.closed)
        #expect(digest.epilogue == 0)
        try #require(digest.parts.count == 2)
        #expect(digest.parts[0].name == "album")
        #expect(digest.parts[0].size == "Holiday 2026".utf8.count)
        #expect(digest.parts[1].name == "video")
        #expect(digest.parts[1].filename == "clip.mp4")
        #expect(digest.parts[1].contentType == "video/mp4")
        #expect(digest.parts[1].size == source.size)
        #expect(digest.parts[1].sha256 == source.sha256)
        #expect(growth < size / 6, "memory grew by \(growth / 1_000_000) MB uploading \(size / 1_000_000) MB")
    }

    /// Writes `megabytes` MiB of varied bytes a chunk at a time, and returns the size.
    static func write(megabytes: Int, to url: URL) throws -> Int {
        var generator = SystemRandomNumberGenerator()
        let words = (0..<(1 << 17)).map { _ in generator.next() as UInt64 }
        var chunk = words.withUnsafeBytes { Data($0) }
        try #require(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        for index in 0..<megabytes {
            withUnsafeBytes(of: UInt64(index)) { chunk.replaceSubrange(0..<8, with: $0) }
            try handle.write(contentsOf: chunk)
        }
        try handle.close()
        return megabytes * chunk.count
    }
}

/// The peak resident memory of this process since the meter was made, from Linux's `/proc/self/status`.
struct MemoryMeter {
    static var isAvailable: Bool {
        FileManager.default.isReadableFile(atPath: "/proc/self/status")
            && FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs")
    }

    /// Resident memory when the meter was made, in bytes.
    let baseline: Int

    /// Resets the process's peak resident memory (`VmHWM`) to its current size, and records that size.
    init() throws {
        // Writing 5 to clear_refs resets VmHWM (Linux 4.0 and later).
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        baseline = try Self.read("VmRSS")
        let peak = try Self.read("VmHWM")
        guard peak <= baseline + 1_000_000 else {
            throw TestServerError("VmHWM (\(peak)) was not reset to VmRSS (\(baseline))")
        }
    }

    /// How far the peak resident memory rose above the baseline, in bytes.
    func peakGrowth() throws -> Int {
        try Self.read("VmHWM") - baseline
    }

    private static func read(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
            let kilobytes = Int(line.dropFirst(field.count + 1).filter(\.isNumber))
        else {
            throw TestServerError("no \(field) in /proc/self/status")
        }
        return kilobytes * 1024
    }
}
