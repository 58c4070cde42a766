// The code samples of the "Caching and deduplication" article (Fetch.docc/Caching.md), compiled here so that they
// cannot rot.

import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func cachingSample() async throws {
    // DOC-BEGIN
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil  // only Fetch's cache answers
    let session = Session(configuration: configuration)
    let performer = CachingPerformer(DeduplicatingPerformer(session), maximumBytes: 32 << 20)

    async let first: User = performer.perform(GetUser(baseURL: baseURL, id: 1))
    async let second: User = performer.perform(GetUser(baseURL: baseURL, id: 1))  // shares the first's request
    let users = try await [first, second]
    let again: User = try await performer.perform(GetUser(baseURL: baseURL, id: 1))  // fresh: from memory
    // DOC-END
    _ = (users, again)
}

func diskCachingSample(session: Session) async throws {
    // DOC-BEGIN
    let caches = try FileManager.default.url(
        for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    let cache = try session.caching(
        directory: caches.appending(path: "api-cache"),  // the cache's own directory
        maximumDiskBytes: 64 << 20,
        offlinePolicy: .serveStoredOnFailure
    )
    let response: Response = try await cache.perform(GetUser(baseURL: baseURL, id: 1))
    if response.isStale {
        print("offline: this user is \(response[header: "Age"] ?? "?") seconds old")
    }
    let user = try User.parse(response: response, errorParser: nil).get()
    // DOC-END
    _ = user
}
