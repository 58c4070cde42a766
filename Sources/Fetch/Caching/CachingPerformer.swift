import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``RequestPerforming`` object that keeps responses in an HTTP cache, in memory or on disk, and answers from it
/// while they are fresh.
///
/// ```swift
/// let performer = CachingPerformer(
///     Session(transport: URLSessionTransport(configuration: configuration)), maximumBytes: 32 << 20)
/// let user: User = try await performer.perform(GetUser(id: 1))  // from the network
/// let again: User = try await performer.perform(GetUser(id: 1))  // from memory while fresh
/// ```
///
/// It follows HTTP caching (RFC 9111) as a private client cache (or a shared one, see ``storesPrivateResponses``):
/// - Only `GET` responses with status 200 are stored; a response with `Cache-Control: no-store`, with `Vary: *`, or
///   (unless ``storesPrivateResponses`` is set) with `Cache-Control: private` is not.
/// - A stored response is fresh for `Cache-Control: max-age`, otherwise until `Expires` (measured against the
///   response's `Date`), less its `Age`. Every number is read strictly: an invalid `max-age` makes the response stale,
///   an invalid `Age` (`-1`, `1e300`, `inf`) is ignored, and any delta-seconds above 2^31 is read as 2^31. There is no heuristic freshness: a response without either is stored only
///   when it has a validator, and revalidated on every use.
/// - A stale response, or one marked `no-cache`, is revalidated with `If-None-Match` (its `ETag`) and
///   `If-Modified-Since` (its `Last-Modified`); a `304 Not Modified` answers from the stored body and refreshes its
///   headers and age.
/// - A stored response is used only for requests whose headers named by its `Vary` match the request that stored it.
/// - **Users are kept apart.** The cache is private by default: it keys each response by the credentials its request
///   carried (`Authorization`, `Cookie`, `Proxy-Authorization`, as a keyed hash, never in clear), so one user never
///   gets another's response; ``removeAll(authorizedBy:)`` drops a user's responses at log-out. With
///   ``storesPrivateResponses`` `false` it is a shared cache instead. A response with `Set-Cookie` is never stored:
///   it starts or changes a session, and its body and cookie are that session's alone (stricter than RFC 9111 §7.3,
///   which leaves it to the server); a `Set-Cookie` on a `304` reaches only the caller whose revalidation brought it.
///   Credentials are seen as the request reaches the cache: put the cache inside any
///   middleware that adds them (`session.caching().authenticating(with: …)`, not the other way round), and note that
///   `URLSession` adds the cookies of its cookie storage only after the cache.
/// - A request with `Cache-Control: no-store` bypasses the cache; one with `no-cache` revalidates. A successful
///   unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`, …) removes the stored responses for its URL fetched with its
///   credentials and without any (other users' are not known without their credentials).
/// - When the stored bodies and headers exceed the limit, the least recently used responses are removed.
///
/// **Stale responses (RFC 5861).** Within a response's `stale-while-revalidate=N` window (N seconds after it went
/// stale), a caller gets the stored response at once, and the cache revalidates it in the background: once per
/// response, however many callers arrive meanwhile; what the revalidation brings (a `200` or a `304`) updates the
/// store for the next caller. Within `stale-if-error=N`, a revalidation or refetch that fails with a transport error
/// (no connection, a timeout) or with `500`, `502`, `503` or `504` answers with the stored response instead of the
/// failure. `must-revalidate` and `no-cache` responses are never served stale this way, and a request with
/// `Cache-Control: no-cache` never gets a `stale-while-revalidate` answer. With ``OfflinePolicy/serveStoredOnFailure``
/// a transport error answers with any stored response, however stale.
///
/// **How a caller tells a stale answer.** A response served stale carries an `Age` header (its age in seconds, RFC
/// 9111 §5.1) and `Warning: 110 - "Response is Stale"`, and its ``Response/isStale`` is `true`. Ask for a
/// ``Response`` (or look at the response in your ``Parsable`` type's `parse(response:errorParser:)`) to see it. Fresh
/// hits and revalidated responses carry neither.
///
/// **Storage.** ``init(_:maximumBytes:storesPrivateResponses:offlinePolicy:now:)`` keeps responses in memory only.
/// ``init(_:directory:maximumDiskBytes:maximumBytes:storesPrivateResponses:offlinePolicy:now:)`` keeps them in files
/// in a directory too, so that they outlive the process, with the memory cache in front: a response is written to
/// both, read from memory when it is there, and read from disk (then kept in memory) when it is not. Files are
/// written whole under a temporary name and renamed into place; a truncated or corrupt file of the cache's is skipped
/// and removed, never served; several performers or processes may share one directory. Files are 0600, the directory
/// the cache makes 0700, no symbolic link is followed, and a file the cache cannot prove is its own (by its name and
/// its first bytes) is never served, replaced or removed. See <doc:CachingPerUser> for how the cache keeps users'
/// responses apart.
///
/// A fresh hit is delivered without any network work, and without parsing again: the value first parsed from a
/// response in memory is kept with it, per type, and handed to later callers asking for the same type (values are
/// immutable, so sharing one is safe); a response read from disk is parsed once, then kept in memory. ``Response``
/// itself is rebuilt for each caller, since it names the caller's request. Give the wrapped ``Session`` a
/// configuration without `URLCache` (`configuration.urlCache = nil`) so that only this cache acts: `URLSession`'s own
/// cache would otherwise answer or rewrite some revalidations before this one sees them.
///
/// Completions are called on the innermost session's callback queue, as for any stack; the `async` forms do not use
/// a queue. `session.caching()` builds the same performer.
public final class CachingPerformer: RequestPerforming {
    /// Whether a cache answers with stored responses when the network fails.
    public enum OfflinePolicy: Sendable {
        /// Only what HTTP allows: a stale response is served on failure only within its `stale-if-error` window.
        case never
        /// When sending a request fails with a transport error (no connection, a timeout, a refused connection),
        /// answer with the stored response for it, however stale, marked stale. `must-revalidate` does not prevent
        /// it: choosing this policy is the client's permission to use stale responses when disconnected (RFC 9111
        /// §4.2.4). A `5xx` answer is still delivered as it is, unless `stale-if-error` allows the stored response.
        case serveStoredOnFailure
    }

    /// The performer that sends the requests that the cache cannot answer.
    public let base: any RequestPerforming

    /// The most bytes of bodies and headers the cache keeps in memory. Values parsed from stored responses, kept
    /// with them for fresh hits, are not counted.
    public let maximumBytes: Int

    /// The directory that keeps the responses on disk, or `nil` for a cache in memory only.
    public let directory: URL?

    /// The most bytes of files the cache keeps in ``directory``; 0 for a cache in memory only.
    public let maximumDiskBytes: Int

    /// Whether the cache is private, keeping each user's responses apart (`true`, the default), or shared.
    ///
    /// A private cache stores responses marked `Cache-Control: private` too, and keys every response by the
    /// credentials its request carried (a keyed hash of `Authorization`, `Cookie` and `Proxy-Authorization`): a
    /// response is served only to requests with the same credentials, or, for one fetched without any, to requests
    /// without any. A shared cache (`false`, for one performer serving several users, such as a server's) follows
    /// RFC 9111 §3.5: it never stores a `private` response, and stores a response to a request with credentials
    /// only when `public`, `s-maxage` or `must-revalidate` marks it shareable, then serves it to anyone; there
    /// `s-maxage` is the lifetime and `proxy-revalidate` counts as `must-revalidate`.
    public let storesPrivateResponses: Bool

    /// Whether stored responses answer when the network fails. The default is ``OfflinePolicy/never``.
    public let offlinePolicy: OfflinePolicy

    /// The pipeline: the caching middleware in front of ``base``'s.
    public let pipeline: Pipeline

    private let store: any ResponseStoring
    private let identity: CacheIdentity

    /// Creates a caching performer in front of `base` that keeps responses in memory.
    ///
    /// - Parameters:
    ///   - base: The performer that sends requests the cache cannot answer, such as a ``Session``.
    ///   - maximumBytes: The most bytes of bodies and headers to keep. The default is 16 MiB.
    ///   - storesPrivateResponses: Whether the cache is private (each user's responses apart, `private` ones
    ///     stored) rather than shared; see ``storesPrivateResponses``. The default is `true`.
    ///   - offlinePolicy: Whether stored responses answer when the network fails. The default is
    ///     ``OfflinePolicy/never``.
    ///   - now: The clock that ages responses. The default is the system clock; tests pass one they advance.
    public convenience init(
        _ base: any RequestPerforming,
        maximumBytes: Int = 16 << 20,
        storesPrivateResponses: Bool = true,
        offlinePolicy: OfflinePolicy = .never,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            base: base,
            store: ResponseStore(limit: maximumBytes),
            identity: CacheIdentity(),
            maximumBytes: maximumBytes,
            directory: nil,
            maximumDiskBytes: 0,
            storesPrivateResponses: storesPrivateResponses,
            offlinePolicy: offlinePolicy,
            now: now
        )
    }

    /// Creates a caching performer in front of `base` that keeps responses in files in `directory`, with the most
    /// recently used also in memory, so that they outlive the process.
    ///
    /// ```swift
    /// let caches = try FileManager.default.url(
    ///     for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    /// let performer = try CachingPerformer(
    ///     session, directory: caches.appending(path: "api"), offlinePolicy: .serveStoredOnFailure)
    /// ```
    ///
    /// - Parameters:
    ///   - base: The performer that sends requests the cache cannot answer, such as a ``Session``.
    ///   - directory: The directory for the cache's files, created (0700) if needed. Give the cache a directory
    ///     of its own: the cache never touches a file it cannot prove is its own, but it adds its files (0600) to
    ///     whatever directory it is given.
    ///   - maximumDiskBytes: The most bytes of files to keep in `directory`. The default is 64 MiB.
    ///   - maximumBytes: The most bytes of bodies and headers to keep in memory as well. The default is 16 MiB; 0
    ///     reads every hit from disk.
    ///   - storesPrivateResponses: Whether the cache is private (each user's responses apart, `private` ones
    ///     stored) rather than shared; see ``storesPrivateResponses``. The default is `true`.
    ///   - offlinePolicy: Whether stored responses answer when the network fails. The default is
    ///     ``OfflinePolicy/never``.
    ///   - now: The clock that ages responses. The default is the system clock; tests pass one they advance.
    /// - Throws: The file system's error when `directory` cannot be created or listed.
    public convenience init(
        _ base: any RequestPerforming,
        directory: URL,
        maximumDiskBytes: Int = 64 << 20,
        maximumBytes: Int = 16 << 20,
        storesPrivateResponses: Bool = true,
        offlinePolicy: OfflinePolicy = .never,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let disk = try DiskResponseStore(directory: directory, limit: maximumDiskBytes)
        self.init(
            base: base,
            store: LayeredResponseStore(memory: ResponseStore(limit: maximumBytes), disk: disk),
            identity: CacheIdentity(salt: disk.salt),
            maximumBytes: maximumBytes,
            directory: directory,
            maximumDiskBytes: maximumDiskBytes,
            storesPrivateResponses: storesPrivateResponses,
            offlinePolicy: offlinePolicy,
            now: now
        )
    }

    private init(
        base: any RequestPerforming,
        store: any ResponseStoring,
        identity: CacheIdentity,
        maximumBytes: Int,
        directory: URL?,
        maximumDiskBytes: Int,
        storesPrivateResponses: Bool,
        offlinePolicy: OfflinePolicy,
        now: @escaping @Sendable () -> Date
    ) {
        self.base = base
        self.maximumBytes = maximumBytes
        self.directory = directory
        self.maximumDiskBytes = maximumDiskBytes
        self.storesPrivateResponses = storesPrivateResponses
        self.offlinePolicy = offlinePolicy
        self.store = store
        self.identity = identity
        self.pipeline = base.pipeline.adding(
            CachingMiddleware(
                store: store,
                identity: identity,
                storesPrivateResponses: storesPrivateResponses,
                offlinePolicy: offlinePolicy,
                revalidations: Revalidations(),
                now: now
            ))
    }

    /// The bytes of bodies and headers stored now: in memory, or, for a cache with a ``directory``, of the files on
    /// disk (which hold every stored response).
    public var storedBytes: Int {
        store.bytes
    }

    /// The number of responses stored now: in memory, or, for a cache with a ``directory``, on disk.
    public var storedResponseCount: Int {
        store.count
    }

    /// Removes every stored response, from memory and from disk.
    public func removeAll() {
        store.removeAll()
    }

    /// Removes every response stored for requests that carried `credentials`, from memory and from disk: what an
    /// app calls when a user logs out.
    ///
    /// ```swift
    /// performer.removeAll(authorizedBy: [.authorization(bearerToken: token)])
    /// ```
    ///
    /// Responses are kept by the whole set of credential fields a request carried (`Authorization`, `Cookie`,
    /// `Proxy-Authorization`): pass the same fields with the same values; fields of other names are ignored. A
    /// cache with ``storesPrivateResponses`` `false` keeps only responses the server marked shareable, under their
    /// URL alone, so this removes none of them.
    ///
    /// - Parameter credentials: The credential header fields the user's requests carried.
    public func removeAll(authorizedBy credentials: [HTTPHeader]) {
        guard let tag = identity.tag(for: credentials) else {
            return
        }
        store.removeAll(identifiedBy: tag)
    }

    /// Answers a request from the cache when a fresh response is stored, otherwise sends it (conditionally when a
    /// stale response has validators) and stores what may be stored.
    ///
    /// - Parameters:
    ///   - request: The request to answer.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once with the parsed value or the error.
    /// - Returns: A handle that cancels the call; a call answered from the cache has finished already.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }
}

/// Answers from the store while fresh (or stale within what HTTP and the offline policy allow), revalidates when
/// stale, and stores what may be stored.
private struct CachingMiddleware: Middleware {
    /// A request as the cache sees it: its key, the request kept for `Vary` matching, and whether it carried
    /// credentials.
    struct Lookup {
        let key: String
        let request: URLRequest
        let hadCredentials: Bool
    }

    let store: any ResponseStoring
    let identity: CacheIdentity
    let storesPrivateResponses: Bool
    let offlinePolicy: CachingPerformer.OfflinePolicy
    let revalidations: Revalidations
    let now: @Sendable () -> Date

    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        // A request that cannot be built is not cached: the transport reports why. A stream's body is the caller's.
        guard !context.isStreaming,
            case .success(let sentRequest) = Exchange.makeURLRequest(for: request, defaultTimeout: nil),
            let url = sentRequest.url?.absoluteString
        else {
            next(request, completion: completion)
            return
        }
        // A private cache keys each response by whose credentials fetched it; a shared one keys by URL alone and
        // stores a response to credentials only when the server marks it shareable. Either way the request kept
        // for `Vary` holds the credentials' tags, never the credentials.
        let hadCredentials = CacheIdentity.hasCredentials(sentRequest)
        let identityTag = hadCredentials && storesPrivateResponses ? identity.tag(for: sentRequest) : nil
        let key = CacheKey.make(url: url, identity: identityTag)
        let urlRequest = hadCredentials ? identity.masked(sentRequest) : sentRequest
        guard request.method == .get else {
            sendUnsafe(request, keys: Set([key, url]), next: next, completion: completion)
            return
        }
        let asked = CacheControl(urlRequest.value(forHTTPHeaderField: "Cache-Control"))
        if asked.noStore {
            next(request, completion: completion)
            return
        }
        let stored = store.response(for: key, matching: urlRequest)
        let requestTime = now()
        if let stored, !asked.noCache {
            if !stored.requiresRevalidation, stored.isFresh(at: requestTime) {
                completion(.success(stored.response(answering: request)))
                return
            }
            if stored.isUsableStale(at: requestTime, forError: false) {
                completion(.success(stored.staleResponse(answering: request, at: requestTime)))
                let lookup = Lookup(key: key, request: urlRequest, hadCredentials: hadCredentials)
                revalidateInBackground(stored, for: request, sent: lookup, next: next)
                return
            }
        }
        let sent: any Request = stored.map { ConditionalRequest(request, validating: $0) } ?? request
        let lookup = Lookup(key: key, request: urlRequest, hadCredentials: hadCredentials)
        next(sent) { result in
            completion(answer(result, to: request, sent: lookup, stored: stored, requestTime: requestTime))
        }
    }

    /// What the caller gets for what the network answered: the stored response instead of a failure when
    /// `stale-if-error` or the offline policy allows it, else the network's answer, stored as HTTP allows.
    private func answer(
        _ result: Result<Response, any Error>,
        to request: any Request,
        sent lookup: Lookup,
        stored: StoredResponse?,
        requestTime: Date
    ) -> Result<Response, any Error> {
        switch result {
        case .success(let received):
            let time = now()
            if let stored, Self.isServerError(received.status), stored.isUsableStale(at: time, forError: true) {
                return .success(stored.staleResponse(answering: request, at: time))
            }
            return .success(handle(received, to: request, sent: lookup, stored: stored, requestTime: requestTime))
        case .failure(let error):
            guard let stored else {
                return .failure(error)
            }
            let failure = Self.failureKind(error)
            let time = now()
            let allowedByServer = failure != nil && stored.isUsableStale(at: time, forError: true)
            let allowedOffline = failure == .network && offlinePolicy == .serveStoredOnFailure
            guard allowedByServer || allowedOffline else {
                return .failure(error)
            }
            return .success(stored.staleResponse(answering: request, at: time))
        }
    }

    /// Revalidates (or refetches) a stale response served under `stale-while-revalidate`, unless a revalidation of
    /// it is already running, as a call of its own that the caller's cancellation does not stop. Its answer updates
    /// the store; a failure leaves the stored response as it is.
    private func revalidateInBackground(
        _ stored: StoredResponse,
        for request: any Request,
        sent lookup: Lookup,
        next: Next
    ) {
        guard revalidations.begin(stored.key) else {
            return
        }
        let requestTime = now()
        _ = next.detached(ConditionalRequest(request, validating: stored)) { result in
            if case .success(let received) = result {
                _ = handle(received, to: request, sent: lookup, stored: stored, requestTime: requestTime)
            }
            revalidations.end(stored.key)
        }
    }

    /// Stores or refreshes what the network answered, and returns the response to give the caller.
    private func handle(
        _ received: Response,
        to request: any Request,
        sent lookup: Lookup,
        stored: StoredResponse?,
        requestTime: Date
    ) -> Response {
        let responseTime = now()
        if received.status == 304, let stored {
            let isShared = !storesPrivateResponses
            let refreshed = stored.refreshed(
                by: received, requestTime: requestTime, responseTime: responseTime, isShared: isShared)
            store.insert(refreshed)
            guard received.value(forHeader: "Set-Cookie") != nil else {
                return refreshed.response(answering: request)
            }
            // The cookie goes to this caller only; the stored response keeps none.
            return stored.refreshed(
                by: received, requestTime: requestTime, responseTime: responseTime, isShared: isShared,
                keepingCookies: true
            ).response(answering: request)
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
            return received.answering(request)
        }
        store.insert(storable)
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
        switch error {
        case FetchError.transport(let urlError, _):
            return urlError.code == .cancelled ? nil : .network
        case FetchError.timedOut:
            return .network
        case FetchError.unacceptableStatus(let response):
            return isServerError(response.status) ? .server : nil
        case FetchError.attemptsExhausted(_, let lastError, _):
            return failureKind(lastError)
        case let urlError as URLError:
            return urlError.code == .cancelled ? nil : .network
        default:
            return nil
        }
    }
}

/// The keys whose stale responses are being revalidated in the background, so that each is revalidated once
/// however many callers are served it meanwhile.
private final class Revalidations: Sendable {
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
        self.entityTag = stored.value(forHeader: "ETag")
        self.lastModified = stored.value(forHeader: "Last-Modified")
    }

    var url: URL { original.url }
    var method: HTTPMethod { original.method }
    var headers: [String: String]? { original.headers }
    var body: Data? { original.body }
    var timeout: TimeInterval? { original.timeout }
    var maximumResponseSize: Int? { original.maximumResponseSize }

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
