import Fetch
import Foundation

/// A performer behind `.cache(cache)`, with the cache at hand: what the cache tests call through and look into.
struct CachedPerformer: RequestPerforming {
    let cache: ResponseCache
    let pipeline: Pipeline

    init(_ base: any RequestPerforming, _ cache: ResponseCache) {
        self.cache = cache
        self.pipeline = base.with(.cache(cache))
    }

    @discardableResult
    func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }

    var storedBytes: Int { cache.storedBytes }
    var storedResponseCount: Int { cache.storedResponseCount }
    var offlinePolicy: ResponseCache.OfflinePolicy { cache.offlinePolicy }
    var directory: URL? { cache.directory }
    var maximumDiskBytes: Int { cache.maximumDiskBytes }

    func removeAll() { cache.removeAll() }
    func removeAll(authorizedBy credentials: [HTTPHeader]) { cache.removeAll(authorizedBy: credentials) }
}
