import Foundation

/// An HTTP cache, in memory or on disk, that ``Middleware/cache(_:)`` answers from while its responses are fresh:
/// the handle that reads its size and empties it.
///
/// ```swift
/// let cache = ResponseCache()
/// let api = session.with(.cache(cache))
/// // at log-out:
/// cache.removeAll(authorizedBy: [.authorization(bearerToken: token)])
/// ```
///
/// It follows HTTP caching (RFC 9111) as a private client cache (or a shared one, see `storesPrivateResponses`):
/// - Only `GET` responses with status 200 are stored; a response with `Cache-Control: no-store`, with `Vary: *`, or
///   (unless `storesPrivateResponses` is set) with `Cache-Control: private` is not.
/// - A stored response is fresh for `Cache-Control: max-age`, otherwise until `Expires` (measured against the
///   response's `Date`), less its `Age`. Every number is read strictly: an invalid `max-age` makes the response stale,
///   an invalid `Age` (`-1`, `1e300`, `inf`) is ignored, and any delta-seconds above 2^31 is read as 2^31. There is
///   no heuristic freshness: a response without either is stored only when it has a validator, and revalidated on
///   every use.
/// - A stale response, or one marked `no-cache`, is revalidated with `If-None-Match` (its `ETag`) and
///   `If-Modified-Since` (its `Last-Modified`); a `304 Not Modified` answers from the stored body and refreshes its
///   headers and age.
/// - A stored response is used only for requests whose headers named by its `Vary` match the request that stored it.
/// - **Users are kept apart.** The cache is private by default: it keys each response by the credentials its request
///   carried (every header field and query parameter ``Redaction`` calls a secret, such as `Authorization`,
///   `Cookie` and `X-API-Key`, and the URL's user and password, as keyed hashes, never in clear), so one user never
///   gets another's response; ``removeAll(authorizedBy:)`` drops a user's responses at log-out. With
///   `storesPrivateResponses` `false` it is a shared cache instead. A response with `Set-Cookie` is never stored:
///   it starts or changes a session, and its body and cookie are that session's alone (stricter than RFC 9111 §7.3,
///   which leaves it to the server); a `Set-Cookie` on a `304` reaches only the caller whose revalidation brought it.
///   Credentials are seen as the request reaches the cache: put the cache inside any middleware that adds them
///   (`session.with(.authenticate(with: …), .cache(cache))`, not the other way round), and note that `URLSession`
///   adds the cookies of its cookie storage only after the cache.
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
/// **Storage.** ``init(maximumBytes:storesPrivateResponses:offlinePolicy:secrets:now:)`` keeps responses in memory
/// only. ``init(directory:maximumDiskBytes:maximumBytes:storesPrivateResponses:offlinePolicy:secrets:now:)`` keeps
/// them in files in a directory too, so that they outlive the process, with the memory cache in front: a response is
/// written to both, read from memory when it is there, and read from disk (then kept in memory) when it is not. Files
/// are written whole under a temporary name and renamed into place; a truncated or corrupt file of the cache's is
/// skipped and removed, never served; several caches or processes may share one directory. The directory must be the
/// user's own (owned by the process's user, writable by no one else, not a symbolic link); files are 0600, the
/// directory 0700 when the cache makes it or others could write to it, no symbolic link is followed, and a file the
/// cache cannot prove is its own (by its name, its owner, its mode and its first bytes) is never served, replaced or
/// removed. See <doc:CachingPerUser> for how the cache keeps users' responses apart.
///
/// A fresh hit is delivered without any network work, and without parsing again: the value first parsed from a
/// response in memory is kept with it, per type, and handed to later callers asking for the same type (values are
/// immutable, so sharing one is safe); a response read from disk is parsed once, then kept in memory. ``Response``
/// itself is rebuilt for each caller, since it names the caller's request. Give the ``Session`` behind the cache a
/// configuration without `URLCache` (`configuration.urlCache = nil`) so that only this cache acts: `URLSession`'s own
/// cache would otherwise answer or rewrite some revalidations before this one sees them.
///
/// Several pipelines may share one cache. `Sendable`: the stores keep their state behind their own locks.
public final class ResponseCache: Sendable {
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

    /// The most bytes of bodies and headers the cache keeps in memory. Values parsed from stored responses, kept
    /// with them for fresh hits, are not counted.
    package let maximumBytes: Int

    /// The directory that keeps the responses on disk, or `nil` for a cache in memory only.
    package let directory: URL?

    /// The most bytes of files the cache keeps in `directory`; 0 for a cache in memory only.
    package let maximumDiskBytes: Int

    /// Whether the cache is private, keeping each user's responses apart (`true`, the default), or shared.
    ///
    /// A private cache stores responses marked `Cache-Control: private` too, and keys every response by the
    /// credentials its request carried (keyed hashes of its secret header fields, of its URL's user and password and
    /// of its secret query parameters, as ``Redaction`` and the cache's `secrets` name them): a response is served
    /// only to requests with the same credentials, or, for one fetched without any, to requests without any. A
    /// shared cache (`false`, for one performer serving several users, such as a server's) follows RFC 9111 §3.5:
    /// it never stores a `private` response, and stores a response to a request with any of these credentials only
    /// when `public`, `s-maxage` or `must-revalidate` marks it shareable, then serves it to anyone; there `s-maxage`
    /// is the lifetime and `proxy-revalidate` counts as `must-revalidate`.
    package let storesPrivateResponses: Bool

    /// Whether stored responses answer when the network fails. The default is ``OfflinePolicy/never``.
    package let offlinePolicy: OfflinePolicy

    let store: any ResponseStoring
    let identity: CacheIdentity
    /// The stale responses being revalidated in the background.
    let revalidations = Revalidations()
    /// The clock that ages responses.
    let now: @Sendable () -> Date

    /// Creates a cache that keeps responses in memory.
    ///
    /// - Parameters:
    ///   - maximumBytes: The most bytes of bodies and headers to keep. The default is 16 MiB.
    ///   - storesPrivateResponses: Whether the cache is private (each user's responses apart, `private` ones
    ///     stored) rather than shared; see `storesPrivateResponses`. The default is `true`.
    ///   - offlinePolicy: Whether stored responses answer when the network fails. The default is
    ///     ``OfflinePolicy/never``.
    ///   - secrets: The names of header fields and query parameters that identify a user, besides the defaults of
    ///     ``Redaction``. The default adds none.
    ///   - now: The clock that ages responses. The default is the system clock; tests pass one they advance.
    public convenience init(
        maximumBytes: Int = 16 << 20,
        storesPrivateResponses: Bool = true,
        offlinePolicy: OfflinePolicy = .never,
        secrets: Redaction = [],
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            store: ResponseStore(limit: maximumBytes),
            identity: CacheIdentity(secrets: secrets),
            maximumBytes: maximumBytes,
            directory: nil,
            maximumDiskBytes: 0,
            storesPrivateResponses: storesPrivateResponses,
            offlinePolicy: offlinePolicy,
            now: now
        )
    }

    /// Creates a cache that keeps responses in files in `directory`, with the most recently used also in memory, so
    /// that they outlive the process.
    ///
    /// ```swift
    /// let caches = try FileManager.default.url(
    ///     for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    /// let cache = try ResponseCache(directory: caches.appending(path: "api"), offlinePolicy: .serveStoredOnFailure)
    /// ```
    ///
    /// - Parameters:
    ///   - directory: The directory for the cache's files, created (0700) if needed. Give the cache a directory
    ///     of its own: the cache never touches a file it cannot prove is its own, but it adds its files (0600) to
    ///     whatever directory it is given. It must be this user's, and is made 0700 when group or others may write
    ///     to it.
    ///   - maximumDiskBytes: The most bytes of files to keep in `directory`. The default is 64 MiB.
    ///   - maximumBytes: The most bytes of bodies and headers to keep in memory as well. The default is 16 MiB; 0
    ///     reads every hit from disk.
    ///   - storesPrivateResponses: Whether the cache is private (each user's responses apart, `private` ones
    ///     stored) rather than shared; see `storesPrivateResponses`. The default is `true`.
    ///   - offlinePolicy: Whether stored responses answer when the network fails. The default is
    ///     ``OfflinePolicy/never``.
    ///   - secrets: The names of header fields and query parameters that identify a user, besides the defaults of
    ///     ``Redaction``. The default adds none.
    ///   - now: The clock that ages responses. The default is the system clock; tests pass one they advance.
    /// - Throws: ``FetchError/invalidRequest(_:)``, naming the path and what is wrong with it, when `directory` is
    ///   not this user's own: a symbolic link (never followed), not a directory, owned by another user (another
    ///   user's files and salt are never trusted), writable by group or others and not made 0700, or holding a salt
    ///   file (`.fetch-cache-salt`) that is a symbolic link, another user's, or readable or writable by group or
    ///   others. The file system's error when `directory` or its parents cannot be created or listed.
    public convenience init(
        directory: URL,
        maximumDiskBytes: Int = 64 << 20,
        maximumBytes: Int = 16 << 20,
        storesPrivateResponses: Bool = true,
        offlinePolicy: OfflinePolicy = .never,
        secrets: Redaction = [],
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let disk = try DiskResponseStore(directory: directory, limit: maximumDiskBytes, secrets: secrets)
        self.init(
            store: LayeredResponseStore(memory: ResponseStore(limit: maximumBytes), disk: disk),
            identity: disk.identity,
            maximumBytes: maximumBytes,
            directory: directory,
            maximumDiskBytes: maximumDiskBytes,
            storesPrivateResponses: storesPrivateResponses,
            offlinePolicy: offlinePolicy,
            now: now
        )
    }

    private init(
        store: any ResponseStoring,
        identity: CacheIdentity,
        maximumBytes: Int,
        directory: URL?,
        maximumDiskBytes: Int,
        storesPrivateResponses: Bool,
        offlinePolicy: OfflinePolicy,
        now: @escaping @Sendable () -> Date
    ) {
        self.maximumBytes = maximumBytes
        self.directory = directory
        self.maximumDiskBytes = maximumDiskBytes
        self.storesPrivateResponses = storesPrivateResponses
        self.offlinePolicy = offlinePolicy
        self.store = store
        self.identity = identity
        self.now = now
    }

    /// The bytes of bodies and headers stored now: in memory, or, for a cache with a `directory`, of the files on
    /// disk (which hold every stored response).
    public var storedBytes: Int {
        store.bytes
    }

    /// The number of responses stored now: in memory, or, for a cache with a `directory`, on disk.
    package var storedResponseCount: Int {
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
    /// cache.removeAll(authorizedBy: [.authorization(bearerToken: token)])
    /// ```
    ///
    /// Responses are kept by the whole set of secret header fields a request carried (those ``Redaction`` and the
    /// cache's `secrets` name, such as `Authorization`, `Cookie` and `X-API-Key`): pass the same fields with the
    /// same values; fields that are no secret are ignored. Responses to requests whose only credentials were in the
    /// URL (its user and password, an `access_token` parameter) are kept under that URL's tags, and only
    /// ``removeAll()`` removes them. A cache with `storesPrivateResponses` `false` keeps only responses the server
    /// marked shareable, under their URL alone, so this removes none of them.
    ///
    /// - Parameter credentials: The secret header fields the user's requests carried.
    public func removeAll(authorizedBy credentials: [HTTPHeader]) {
        guard let tag = identity.tag(for: credentials) else {
            return
        }
        store.removeAll(identifiedBy: tag)
    }
}
