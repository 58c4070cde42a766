import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``RequestPerforming`` object that keeps responses in a memory-bounded HTTP cache and answers from it while
/// they are fresh.
///
/// ```swift
/// let performer = CachingPerformer(Session(configuration: configuration), maximumBytes: 32 << 20)
/// let user: User = try await performer.perform(GetUser(id: 1))  // from the network
/// let again: User = try await performer.perform(GetUser(id: 1))  // from memory while fresh
/// ```
///
/// It follows HTTP caching (RFC 9111) as a private client cache:
/// - Only `GET` responses with status 200 are stored; a response with `Cache-Control: no-store`, with `Vary: *`, or
///   (unless ``storesPrivateResponses`` is set) with `Cache-Control: private` is not.
/// - A stored response is fresh for `Cache-Control: max-age`, otherwise until `Expires` (measured against the
///   response's `Date`), less its `Age`. There is no heuristic freshness: a response without either is stored only
///   when it has a validator, and revalidated on every use.
/// - A stale response, or one marked `no-cache`, is revalidated with `If-None-Match` (its `ETag`) and
///   `If-Modified-Since` (its `Last-Modified`); a `304 Not Modified` answers from the stored body and refreshes its
///   headers and age.
/// - A stored response is used only for requests whose headers named by its `Vary` match the request that stored it.
/// - A request with `Cache-Control: no-store` bypasses the cache; one with `no-cache` revalidates. A successful
///   unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`, …) removes the stored response for its URL.
/// - When the stored bodies and headers exceed ``maximumBytes``, the least recently used responses are removed.
///
/// A fresh hit is delivered without any network work, and without parsing again: the value first parsed from a
/// stored response is kept with it, per type, and handed to later callers asking for the same type (values are
/// immutable, so sharing one is safe). ``Response`` itself is rebuilt for each caller, since it names the caller's
/// request. Give the wrapped ``Session`` a configuration
/// without `URLCache` (`configuration.urlCache = nil`) so that only this cache acts: `URLSession`'s own cache would
/// otherwise answer or rewrite some revalidations before this one sees them.
///
/// Completions are called on the innermost session's callback queue, as for any stack; the `async` forms do not use
/// a queue. `session.caching()` builds the same performer.
public final class CachingPerformer: RequestPerforming {
    /// The performer that sends the requests that the cache cannot answer.
    public let base: any RequestPerforming

    /// The most bytes of bodies and headers the cache keeps. Values parsed from stored responses, kept with them
    /// for fresh hits, are not counted.
    public let maximumBytes: Int

    /// Whether responses marked `Cache-Control: private` are stored. A cache inside one app serves one user, so the
    /// default is `true`; set `false` when one performer serves several users.
    public let storesPrivateResponses: Bool

    /// The pipeline: the caching middleware in front of ``base``'s.
    public let pipeline: Pipeline

    private let store: ResponseStore

    /// Creates a caching performer in front of `base`.
    ///
    /// - Parameters:
    ///   - base: The performer that sends requests the cache cannot answer, such as a ``Session``.
    ///   - maximumBytes: The most bytes of bodies and headers to keep. The default is 16 MiB.
    ///   - storesPrivateResponses: Whether to store responses marked `Cache-Control: private`. The default is
    ///     `true`.
    ///   - now: The clock that ages responses. The default is the system clock; tests pass one they advance.
    public init(
        _ base: any RequestPerforming,
        maximumBytes: Int = 16 << 20,
        storesPrivateResponses: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        let store = ResponseStore(limit: maximumBytes)
        self.base = base
        self.maximumBytes = maximumBytes
        self.storesPrivateResponses = storesPrivateResponses
        self.store = store
        self.pipeline = base.pipeline.adding(
            CachingMiddleware(store: store, storesPrivateResponses: storesPrivateResponses, now: now))
    }

    /// The bytes of bodies and headers stored now.
    public var storedBytes: Int {
        store.bytes
    }

    /// The number of responses stored now.
    public var storedResponseCount: Int {
        store.count
    }

    /// Removes every stored response.
    public func removeAll() {
        store.removeAll()
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

/// Answers from the store while fresh, revalidates when stale, and stores what may be stored.
private struct CachingMiddleware: Middleware {
    let store: ResponseStore
    let storesPrivateResponses: Bool
    let now: @Sendable () -> Date

    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        // A request that cannot be built is not cached: the transport reports why. A stream's body is the caller's.
        guard !context.isStreaming,
            case .success(let urlRequest) = Exchange.makeURLRequest(for: request, defaultTimeout: nil),
            let key = urlRequest.url?.absoluteString
        else {
            next(request, completion: completion)
            return
        }
        guard request.method == .get else {
            sendUnsafe(request, key: key, next: next, completion: completion)
            return
        }
        let asked = CacheControl(urlRequest.value(forHTTPHeaderField: "Cache-Control"))
        if asked.noStore {
            next(request, completion: completion)
            return
        }
        let stored = store.response(for: key, matching: urlRequest)
        if let stored, !asked.noCache, !stored.requiresRevalidation, stored.isFresh(at: now()) {
            completion(.success(stored.response(answering: request)))
            return
        }
        let sent: any Request = stored.map { ConditionalRequest(request, validating: $0) } ?? request
        let requestTime = now()
        next(sent) { result in
            completion(
                result.map { received in
                    handle(received, to: request, sent: urlRequest, stored: stored, requestTime: requestTime)
                })
        }
    }

    /// Stores or refreshes what the network answered, and returns the response to give the caller.
    private func handle(
        _ received: Response,
        to request: any Request,
        sent urlRequest: URLRequest,
        stored: StoredResponse?,
        requestTime: Date
    ) -> Response {
        let responseTime = now()
        if received.status == 304, let stored {
            let refreshed = stored.refreshed(by: received, requestTime: requestTime, responseTime: responseTime)
            store.insert(refreshed)
            return refreshed.response(answering: request)
        }
        let key = urlRequest.url?.absoluteString ?? ""
        guard
            let storable = StoredResponse(
                received,
                key: key,
                request: urlRequest,
                requestTime: requestTime,
                responseTime: responseTime,
                storesPrivateResponses: storesPrivateResponses
            )
        else {
            if received.isSuccess {
                store.remove(key)
            }
            return received.answering(request)
        }
        store.insert(storable)
        // The caller parses what the next fresh hit would otherwise parse again.
        return received.answering(request).keepingParsedValues(in: storable.parsedValues)
    }

    /// Sends a request that is not `GET`, and removes the stored response for its URL when it succeeds.
    private func sendUnsafe(
        _ request: any Request,
        key: String,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        guard request.method != .head, request.method != .options else {
            next(request, completion: completion)
            return
        }
        next(request) { [store] result in
            if case .success(let response) = result, response.isSuccess {
                store.remove(key)
            }
            completion(result)
        }
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
