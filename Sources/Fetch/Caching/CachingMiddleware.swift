import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Middleware where Self == CachingMiddleware {
    /// A middleware that answers from `cache` while its responses are fresh, revalidates them when stale, and
    /// stores what HTTP allows (see ``ResponseCache``).
    ///
    /// ```swift
    /// let cache = ResponseCache(maximumBytes: 32 << 20)
    /// let api = session.with(.cache(cache))
    /// let user: User = try await api.perform(GetUser(id: 1))  // from the network
    /// let again: User = try await api.perform(GetUser(id: 1))  // from memory while fresh
    /// ```
    ///
    /// Credentials are seen as the request reaches the cache: put it inside any middleware that adds them
    /// (`session.with(.authenticate(with: …), .cache(cache))`). Streams pass through unchanged.
    ///
    /// - Parameter cache: The responses and their settings; keep it to read its size or empty it at log-out.
    /// - Returns: The middleware.
    public static func cache(_ cache: ResponseCache) -> CachingMiddleware {
        CachingMiddleware(cache: cache)
    }
}

/// Answers from a ``ResponseCache`` while fresh (or stale within what HTTP and the offline policy allow),
/// revalidates when stale, and stores what may be stored: made by ``Middleware/cache(_:)``.
///
/// It reports one outcome per call to the call's observers (an ``Middleware/observe(_:)`` outside it):
/// ``FetchEvent/Name/cacheHit``, ``FetchEvent/Name/cacheStaleServed`` (its reason names the rule that allowed it:
/// `stale-while-revalidate`, `stale-if-error` or the `offline policy`), ``FetchEvent/Name/cacheRevalidated`` (a 304),
/// ``FetchEvent/Name/cacheMiss``, or ``FetchEvent/Name/cacheBypassed`` with why it did not look (a method other than
/// `GET`, `no-store`, a stream). A miss is reported before the request goes on; a stored response that needs the
/// server's word waits for the answer to say which outcome it was. A response from the network is then reported as
/// ``FetchEvent/Name/cacheStored``, or ``FetchEvent/Name/cacheBypassed`` with why it was not stored. A response
/// from the cache carries no ``Response/metrics``: it made no attempt; a revalidated one carries the metrics of the
/// `304`'s attempt.
public struct CachingMiddleware: Middleware {
    /// A request as the cache sees it: its key, the request kept for `Vary` matching, and whether it carried
    /// credentials.
    struct Lookup {
        let key: String
        let request: URLRequest
        let hadCredentials: Bool
    }

    let cache: ResponseCache

    private var store: any ResponseStoring { cache.store }
    private var identity: CacheIdentity { cache.identity }
    private var storesPrivateResponses: Bool { cache.storesPrivateResponses }
    private var offlinePolicy: ResponseCache.OfflinePolicy { cache.offlinePolicy }
    private var revalidations: Revalidations { cache.revalidations }
    private var now: @Sendable () -> Date { cache.now }

    /// Answers `request` from the cache, or passes it on through `next` and stores the answer.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        // A request that cannot be built is not cached: the transport reports why. A stream's body is the caller's.
        guard !context.isStreaming else {
            Self.report(.cacheBypassed, request, reason: "a streamed call: its body goes to the caller", to: context)
            next(request, completion: completion)
            return
        }
        guard case .success(let sentRequest) = Exchange.makeURLRequest(for: request, defaultTimeout: nil),
            let masked = identity.masked(sentRequest)
        else {
            Self.report(.cacheBypassed, request, reason: "the request cannot be built as a cache key", to: context)
            next(request, completion: completion)
            return
        }
        // A private cache keys each response by whose credentials fetched it; a shared one keys by URL alone and
        // stores a response to credentials only when the server marks it shareable. Either way the key's URL and
        // the request kept for `Vary` hold the credentials' tags, never the credentials.
        let hadCredentials = masked.hasCredentials
        let key = CacheKey.make(url: masked.url, identity: storesPrivateResponses ? masked.owner : nil)
        let urlRequest = masked.request
        guard request.method == .get else {
            Self.report(.cacheBypassed, request, reason: "method \(request.method) is not cached", to: context)
            sendUnsafe(request, keys: Set([key, masked.url]), next: next, completion: completion)
            return
        }
        let asked = CacheControl(urlRequest.value(forHTTPHeaderField: "Cache-Control"))
        if asked.noStore {
            Self.report(.cacheBypassed, request, reason: "the request's Cache-Control: no-store", to: context)
            next(request, completion: completion)
            return
        }
        let stored = store.response(for: key, matching: urlRequest)
        let requestTime = now()
        if let stored, !asked.noCache {
            if !stored.requiresRevalidation, stored.isFresh(at: requestTime) {
                let hit = stored.response(answering: request)
                Self.report(.cacheHit, request, response: hit, to: context)
                completion(.success(hit))
                return
            }
            if stored.isUsableStale(at: requestTime, forError: false) {
                let stale = stored.staleResponse(answering: request, at: requestTime)
                Self.report(.cacheStaleServed, request, response: stale, reason: "stale-while-revalidate", to: context)
                completion(.success(stale))
                let lookup = Lookup(key: key, request: urlRequest, hadCredentials: hadCredentials)
                revalidateInBackground(stored, for: request, sent: lookup, context: context, next: next)
                return
            }
        }
        // With nothing stored the call is a miss now; a stored response that needs the server's word is revalidated,
        // and the answer says which outcome it was.
        if stored == nil {
            Self.report(.cacheMiss, request, to: context)
        }
        let sent: any Request = stored.map { ConditionalRequest(request, validating: $0) } ?? request
        let lookup = Lookup(key: key, request: urlRequest, hadCredentials: hadCredentials)
        next(sent) { result in
            completion(
                answer(result, to: request, sent: lookup, stored: stored, requestTime: requestTime, context: context))
        }
    }

    /// Reports the cache's event `name` about `request` to `context`'s observers, when there are any.
    private static func report(
        _ name: FetchEvent.Name, _ request: any Request, response: Response? = nil, reason: String? = nil,
        to context: CallContext
    ) {
        guard !context.observers.isEmpty else {
            return
        }
        context.report(.cache(name, request, response: response, reason: reason))
    }

    /// What the caller gets for what the network answered: the stored response instead of a failure when
    /// `stale-if-error` or the offline policy allows it, else the network's answer, stored as HTTP allows.
    private func answer(
        _ result: Result<Response, any Error>,
        to request: any Request,
        sent lookup: Lookup,
        stored: StoredResponse?,
        requestTime: Date,
        context: CallContext
    ) -> Result<Response, any Error> {
        switch result {
        case .success(let received):
            let time = now()
            if let stored, Self.isServerError(received.status), stored.isUsableStale(at: time, forError: true) {
                let stale = stored.staleResponse(answering: request, at: time)
                let reason = "stale-if-error: the server answered \(HTTPStatus.line(received.status))"
                Self.report(.cacheStaleServed, request, response: stale, reason: reason, to: context)
                return .success(stale)
            }
            if stored != nil, received.status != 304 {
                Self.report(.cacheMiss, request, reason: "the server did not confirm the stored response", to: context)
            }
            return .success(
                handle(received, to: request, sent: lookup, stored: stored, requestTime: requestTime, context: context))
        case .failure(let error):
            guard let stored else {
                return .failure(error)
            }
            let failure = Self.failureKind(error)
            let time = now()
            let allowedByServer = failure != nil && stored.isUsableStale(at: time, forError: true)
            let allowedOffline = failure == .network && offlinePolicy == .serveStoredOnFailure
            guard allowedByServer || allowedOffline else {
                Self.report(
                    .cacheMiss, request, reason: "the stored response could not be revalidated", to: context)
                return .failure(error)
            }
            let stale = stored.staleResponse(answering: request, at: time)
            if !context.observers.isEmpty {
                let rule = allowedByServer ? "stale-if-error" : "offline policy"
                let reason = "\(rule): \(failure == .server ? "the server failed" : "the network failed")"
                Self.report(.cacheStaleServed, request, response: stale, reason: reason, to: context)
            }
            return .success(stale)
        }
    }

    /// Revalidates (or refetches) a stale response served under `stale-while-revalidate`, unless a revalidation of
    /// it is already running, as a call of its own that the caller's cancellation does not stop. Its answer updates
    /// the store, as the events it reports to `context`'s observers say; a failure leaves the stored response as it
    /// is.
    private func revalidateInBackground(
        _ stored: StoredResponse,
        for request: any Request,
        sent lookup: Lookup,
        context: CallContext,
        next: Next
    ) {
        guard revalidations.begin(stored.key) else {
            return
        }
        let requestTime = now()
        _ = next.detached(ConditionalRequest(request, validating: stored)) { result in
            if case .success(let received) = result {
                _ = handle(
                    received, to: request, sent: lookup, stored: stored, requestTime: requestTime, context: context)
            }
            revalidations.end(stored.key)
        }
    }

    /// Stores or refreshes what the network answered, and returns the response to give the caller: reports
    /// `cacheRevalidated` for a `304` that confirms `stored`, else `cacheStored`, or `cacheBypassed` with why it was
    /// not stored.
    private func handle(
        _ received: Response,
        to request: any Request,
        sent lookup: Lookup,
        stored: StoredResponse?,
        requestTime: Date,
        context: CallContext
    ) -> Response {
        let responseTime = now()
        if received.status == 304, let stored {
            let isShared = !storesPrivateResponses
            let refreshed = stored.refreshed(
                by: received, requestTime: requestTime, responseTime: responseTime, isShared: isShared)
            store.insert(refreshed)
            // The stored body, with what the 304's attempt measured: the revalidation is what the call waited for.
            var answer =
                received.headers.contains("Set-Cookie")
                // The cookie goes to this caller only; the stored response keeps none.
                ? stored.refreshed(
                    by: received, requestTime: requestTime, responseTime: responseTime, isShared: isShared,
                    keepingCookies: true
                ).response(answering: request)
                : refreshed.response(answering: request)
            answer.measured = received.measured
            Self.report(.cacheRevalidated, request, response: answer, to: context)
            return answer
        }
        guard
            let storable = StoredResponse(
                received,
                key: lookup.key,
                request: lookup.request,
                requestTime: requestTime,
                responseTime: responseTime,
                storesPrivateResponses: storesPrivateResponses,
                hadCredentials: lookup.hadCredentials
            )
        else {
            if received.isSuccess {
                store.remove(lookup.key)
            }
            if !context.observers.isEmpty {
                let reason =
                    StoredResponse.refusal(
                        of: received, storesPrivateResponses: storesPrivateResponses,
                        hadCredentials: lookup.hadCredentials) ?? StoredResponse.unusableReason
                Self.report(.cacheBypassed, request, response: received, reason: reason, to: context)
            }
            return received.answering(request)
        }
        guard store.insert(storable) else {
            Self.report(
                .cacheBypassed, request, response: received,
                reason: "the response is larger than the cache's limit, or could not be written", to: context)
            return received.answering(request)
        }
        Self.report(.cacheStored, request, response: received, to: context)
        // The caller parses what the next fresh hit would otherwise parse again.
        return received.answering(request).keepingParsedValues(in: storable.parsedValues)
    }

    /// Sends a request that is not `GET`, and removes the stored responses for its URL when it succeeds: the one of
    /// its own credentials and the one fetched without any. Other users' responses for the URL stay (their keys are
    /// not known without their credentials) until they expire or are revalidated.
    private func sendUnsafe(
        _ request: any Request,
        keys: Set<String>,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        guard request.method != .head, request.method != .options else {
            next(request, completion: completion)
            return
        }
        next(request) { [store] result in
            if case .success(let response) = result, response.isSuccess {
                keys.forEach(store.remove)
            }
            completion(result)
        }
    }

    /// The statuses that RFC 5861 §4 counts as errors for `stale-if-error`.
    private static func isServerError(_ status: Int) -> Bool {
        [500, 502, 503, 504].contains(status)
    }

    private enum FailureKind {
        /// The request got no HTTP answer: no connection, a refused connection, a timeout.
        case network
        /// A `500`, `502`, `503` or `504`, delivered as an error by a middleware inside the cache.
        case server
    }

    /// What kind of failure `error` is, or `nil` for one that stale responses must not hide (a cancellation, an
    /// invalid request).
    private static func failureKind(_ error: any Error) -> FailureKind? {
        switch error.fetchKind {
        case .transport(let urlError, _):
            return urlError.code == .cancelled ? nil : .network
        case .timedOut:
            return .network
        case .unacceptableStatus(let response):
            return isServerError(response.status) ? .server : nil
        case .attemptsExhausted(_, let lastError, _):
            return failureKind(lastError)
        case .some:
            return nil
        case nil:
            guard let urlError = error as? URLError else {
                return nil
            }
            return urlError.code == .cancelled ? nil : .network
        }
    }
}

/// The keys whose stale responses are being revalidated in the background, so that each is revalidated once
/// however many callers are served it meanwhile.
final class Revalidations: Sendable {
    private let keys = Locked(Set<String>())

    /// Marks `key` as being revalidated; `false` when it already was.
    func begin(_ key: String) -> Bool {
        keys.withLock { $0.insert(key).inserted }
    }

    func end(_ key: String) {
        keys.withLock { _ = $0.remove(key) }
    }
}

/// A request sent to revalidate a stored response: the caller's request with `If-None-Match` and
/// `If-Modified-Since` added from the stored response's validators.
private struct ConditionalRequest: Request {
    let original: any Request
    let entityTag: String?
    let lastModified: String?

    init(_ original: any Request, validating stored: StoredResponse) {
        self.original = original
        self.entityTag = stored.headers["ETag"]
        self.lastModified = stored.headers["Last-Modified"]
    }

    var url: URL { original.url }
    var method: HTTPMethod { original.method }
    var body: Data? { original.body }
    var timeout: TimeInterval? { original.timeout }
    var maximumResponseSize: Int? { original.maximumResponseSize }

    /// The original's fields, then the validators it does not set itself, as ``makeURLRequest()`` sends them.
    var headers: HeaderFields {
        var headers = original.headers
        if let entityTag, !headers.contains("If-None-Match") {
            headers.append("If-None-Match", entityTag)
        }
        if let lastModified, !headers.contains("If-Modified-Since") {
            headers.append("If-Modified-Since", lastModified)
        }
        return headers
    }

    func makeURLRequest() throws -> URLRequest {
        var urlRequest = try original.makeURLRequest()
        if let entityTag, urlRequest.value(forHTTPHeaderField: "If-None-Match") == nil {
            urlRequest.setValue(entityTag, forHTTPHeaderField: "If-None-Match")
        }
        if let lastModified, urlRequest.value(forHTTPHeaderField: "If-Modified-Since") == nil {
            urlRequest.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        return urlRequest
    }
}
