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
    let session = Session(transport: URLSessionTransport(configuration: configuration))
    let cache = ResponseCache(maximumBytes: 32 << 20)
    let performer = session.with(.cache(cache), .deduplicate())

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
    let cache = try ResponseCache(
        directory: caches.appending(path: "api-cache"),  // the cache's own directory
        maximumDiskBytes: 64 << 20,
        offlinePolicy: .serveStoredOnFailure)
    let response: Response = try await session.with(.cache(cache)).perform(GetUser(baseURL: baseURL, id: 1))
    if response.isStale {
        print("offline: this user is \(response.headers["Age"] ?? "?") seconds old")
    }
    let user = try User.parse(response: response, errorParser: nil).get()
    // DOC-END
    _ = user
}

func cacheSecretsSample() {
    // DOC-BEGIN
    let cache = ResponseCache(secrets: ["X-Tenant", "tenant_id"])
    // DOC-END
    _ = cache
}
