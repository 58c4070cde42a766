import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where an HTTP cache keeps its responses: in memory (``ResponseStore``), on disk (``DiskResponseStore``), or
/// memory in front of disk (``LayeredResponseStore``). One response per key: the request's URL, with the tag of its
/// credentials in a private cache (``CacheKey``).
protocol ResponseStoring: AnyObject, Sendable {
    /// The bytes the store holds now, as it counts them against its limit.
    var bytes: Int { get }

    /// The number of responses the store holds now.
    var count: Int { get }

    /// The response stored for `key` whose `Vary` headers match `request`, marked as just used.
    func response(for key: String, matching request: URLRequest) -> StoredResponse?

    /// Stores `response` in place of any response for its key, evicting the least recently used to fit the limit.
    ///
    /// - Returns: Whether the store kept it: `false` for a response larger than the whole limit, or one that could
    ///   not be written.
    @discardableResult
    func insert(_ response: StoredResponse) -> Bool

    /// Removes the response stored for `key`, if any.
    func remove(_ key: String)

    /// Removes every stored response.
    func removeAll()

    /// Removes every response stored under a key of the credentials tagged `tag` (see ``CacheKey``).
    func removeAll(identifiedBy tag: String)
}

// MARK: - ResponseStoring

extension ResponseStore: ResponseStoring {}
