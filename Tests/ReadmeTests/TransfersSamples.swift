// The code samples of the "Transfers" article (Fetch.docc/Transfers.md), compiled here so that they cannot rot.

import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// DOC-BEGIN
struct GetVideo: Request {
    let baseURL: URL
    var url: URL { baseURL.appending(path: "videos/intro.mp4") }
}

struct UploadPhoto: Request {
    let baseURL: URL
    var url: URL { baseURL.appending(path: "photos") }
    var method: HTTPMethod { .post }
    var headers: HeaderFields { ["Content-Type": "image/jpeg"] }
}

struct Receipt: Decodable, Parsable {
    let id: Int
}
// DOC-END

func downloadSample(destination: URL, photo: URL) async throws {
    // DOC-BEGIN
    let session = Session()

    let download = session.download(GetVideo(baseURL: baseURL), to: destination)
    for await progress in download.progress {
        print("\(progress)")  // 1048576 of 209715200 bytes
    }
    let response = try await download.value  // the body is in `destination`, never in memory

    let upload: Transfer<Receipt> = session.upload(UploadPhoto(baseURL: baseURL), fromFile: photo)
    let receipt = try await upload.value
    // DOC-END
    _ = (response, receipt)
}

func cancelledDownloadSample(session: Session, destination: URL) {
    // DOC-BEGIN
    let download = session.with(.retry()).download(GetVideo(baseURL: baseURL), to: destination)
    download.cancel()  // ends with FetchError.cancelled naming the request; no file is written
    // DOC-END
}

func resumableDownloadSample(session: Session, destination: URL, checksum: String) async throws {
    // DOC-BEGIN
    let resumable = session.download(
        GetVideo(baseURL: baseURL),
        to: destination,
        resumption: DownloadResumption(retryPolicy: RetryPolicy(maximumAttempts: 5), expectedSHA256: checksum)
    )
    for await progress in resumable.progress where progress.event != nil {
        print("\(progress)")  // 10485760 of 104857600 bytes, resuming
    }
    let response = try await resumable.value  // 206 Partial Content when the last request resumed
    // DOC-END
    _ = response
}
