import Fetch
import Foundation

func resumableDownloadSample(transfers: Session, destination: URL, checksum: String) async throws {
    // README-BEGIN
    let resumable = transfers.download(
        GetVideo(baseURL: baseURL),
        to: destination,
        resumption: DownloadResumption(retryPolicy: RetryPolicy(maximumAttempts: 5), expectedSHA256: checksum)
    )
    for await progress in resumable.progress where progress.event != nil {
        print("\(progress)")  // 10485760 of 104857600 bytes, resuming
    }
    let response = try await resumable.value  // 206 Partial Content when the last request resumed
    // README-END
    _ = response
}
