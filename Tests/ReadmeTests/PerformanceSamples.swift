// The code samples of README.md's sections on deduplication, caching and transfers, compiled here so that they
// cannot rot. Each region between README-BEGIN and README-END is one ```swift block of the README.

import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func cachingSample() async throws {
    // README-BEGIN
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil  // only Fetch's cache answers
    let session = Session(transport: URLSessionTransport(configuration: configuration))
    let cache = ResponseCache(maximumBytes: 32 << 20)
    let performer = session.with(.cache(cache), .deduplicate())

    async let first: User = performer.perform(GetUser(baseURL: baseURL, id: 1))
    async let second: User = performer.perform(GetUser(baseURL: baseURL, id: 1))  // shares the first's request
    let users = try await [first, second]
    let again: User = try await performer.perform(GetUser(baseURL: baseURL, id: 1))  // fresh: from memory
    // README-END
    _ = (users, again)
}

func diskCachingSample(session: Session) async throws {
    // README-BEGIN
    let caches = try FileManager.default.url(
        for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    let cache = try ResponseCache(
        directory: caches.appending(path: "api-cache"),  // the cache's own directory
        maximumDiskBytes: 64 << 20,
        offlinePolicy: .serveStoredOnFailure
    )
    let response: Response = try await session.with(.cache(cache)).perform(GetUser(baseURL: baseURL, id: 1))
    if response.isStale {
        print("offline: this user is \(response.headers["Age"] ?? "?") seconds old")
    }
    let user = try User.parse(response: response, errorParser: nil).get()
    // README-END
    _ = user
}

// README-BEGIN
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
// README-END

func downloadSample(destination: URL, photo: URL) async throws {
    // README-BEGIN
    let transfers = Session(transport: URLSessionTransport(configuration: .ephemeral))

    let download = transfers.download(GetVideo(baseURL: baseURL), to: destination)
    for await progress in download.progress {
        print("\(progress)")  // 1048576 of 209715200 bytes
    }
    let response = try await download.value  // the body is in `destination`, never in memory

    let upload: Transfer<Receipt> = transfers.upload(UploadPhoto(baseURL: baseURL), fromFile: photo)
    let receipt = try await upload.value
    // README-END
    _ = (response, receipt)
}

func downloadCancellingSample(transfers: Session, destination: URL) {
    // README-BEGIN
    let call = transfers.download(GetVideo(baseURL: baseURL), to: destination)
    call.cancel()  // `value` throws FetchError.cancelled; no file is written
    // README-END
}
