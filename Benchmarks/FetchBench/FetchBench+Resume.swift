import Fetch
import FetchTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - Resumable downloads

    /// Downloads a file whose connection the server drops every 10 % with a session's resumable download, and
    /// reports the body bytes the server sent over the file's size (1.0 is perfect: nothing sent twice).
    static func resumeRow(into table: inout Table, options: Options) {
        let size = options.quick ? 20 << 20 : 100 << 20
        let measure = "Resumable download dropped every 10 % (\(size >> 20) MiB) → bytes sent / file size"
        do {
            let server = try DroppingServer(size: size, dropEvery: size / 10)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "fetch-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up
            let transfers = Session(
                transport: URLSessionTransport(configuration: serverConfiguration()), callbackQueue: .init())
            let resumption = DownloadResumption(
                retryPolicy: RetryPolicy(maximumAttempts: 3, backoff: Backoff(initialDelay: 0)),
                scheduler: TestScheduler())
            let destination = directory.appendingPathComponent("file")
            let outcome = blocking { () -> Result<Response, any Error> in
                do {
                    return .success(
                        try await transfers.download(Get(url: server.url), to: destination, resumption: resumption)
                            .value)
                } catch {
                    return .failure(error)
                }
            }
            let ratio = Double(server.sent) / Double(size)
            switch outcome {
            case .success:
                table.value(measure, String(format: "%.3f", ratio), target: "<= 1.10", passed: ratio <= 1.1)
            case .failure(let error):
                table.value(measure, "failed: \(error)", target: "<= 1.10", passed: false)
            }
        } catch {
            table.value(measure, "no server: \(error)", target: "<= 1.10", passed: false)
        }
    }
}
