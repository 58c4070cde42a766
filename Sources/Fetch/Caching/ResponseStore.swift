import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The responses a ``ResponseCache`` keeps, bounded in bytes, evicting the least recently used first.
final class ResponseStore: Sendable {
    private struct Slot {
        var response: StoredResponse
        var lastUse: UInt64
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = limit
    }

    var bytes: Int {
        state.withLock { $0.bytes }
    }

    var count: Int {
        state.withLock { $0.slots.count }
    }

    /// The response stored for `key` whose `Vary` headers match `request`, marked as just used.
    func response(for key: String, matching request: URLRequest) -> StoredResponse? {
        state.withLock { state in
            guard var slot = state.slots[key], slot.response.varies(from: request) == false else {
                return nil
            }
            state.uses += 1
            slot.lastUse = state.uses
            state.slots[key] = slot
            return slot.response
        }
    }

    /// Stores `response` in place of any response for its key, then evicts the least recently used responses until
    /// the store fits its limit. A response larger than the whole limit is not stored.
    @discardableResult
    func insert(_ response: StoredResponse) -> Bool {
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: response.key) {
                state.bytes -= old.response.cost
            }
            guard response.cost <= limit else {
                return false
            }
            state.uses += 1
            state.slots[response.key] = Slot(response: response, lastUse: state.uses)
            state.bytes += response.cost
            while state.bytes > limit, let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.slots[oldest.key] = nil
                state.bytes -= oldest.value.response.cost
            }
            return true
        }
    }

    func remove(_ key: String) {
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: key) {
                state.bytes -= old.response.cost
            }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    func removeAll(identifiedBy tag: String) {
        let prefix = CacheKey.prefix(of: tag)
        state.withLock { state in
            for (key, slot) in state.slots where key.hasPrefix(prefix) {
                state.slots[key] = nil
                state.bytes -= slot.response.cost
            }
        }
    }
}

/// A response kept by a ``ResponseCache``, with what it takes to age it (RFC 9111 §4.2).
package struct StoredResponse: Sendable {
    package let key: String
    package let status: Int
    package let headers: HeaderFields
    package let data: Data?
    package let url: URL?
    /// The request's values of the headers the response's `Vary` names (`nil` for a header it did not send), the
    /// credential fields' as their tags.
    package let varyingValues: [String: String?]
    package let requestTime: Date
    package let responseTime: Date
    /// The values parsed from this response so far, by type.
    let parsedValues = ParsedValues()

    /// What the response costs against the store's limit: its body, headers and a fixed overhead.
    var cost: Int {
        (data?.count ?? 0) + headers.reduce(256) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }

    /// What the headers and times say about the response's freshness, worked out once so that a hit parses no
    /// header (and kept in the disk store's files, so that a hit from disk does not either).
    package let freshness: ResponseFreshness

    // The parts of `freshness`, by the names the cache's rules use.
    var requiresRevalidation: Bool { freshness.requiresRevalidation }
    var freshnessLifetime: TimeInterval { freshness.lifetime }
    var initialAge: TimeInterval { freshness.initialAge }
    var forbidsStaleUse: Bool { freshness.forbidsStaleUse }
    var staleWhileRevalidate: TimeInterval { freshness.staleWhileRevalidate }
    var staleIfError: TimeInterval { freshness.staleIfError }

    /// Keeps `received` when HTTP allows the cache to store it and it can be used later; `nil` otherwise.
    ///
    /// - Parameters:
    ///   - received: The response.
    ///   - key: The key to store it under.
    ///   - request: The request as the cache keeps it for `Vary` matching (credential fields masked by
    ///     ``CacheIdentity/masked(_:)``).
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response arrived.
    ///   - storesPrivateResponses: Whether the cache is private (one identity per key) rather than shared.
    ///   - hadCredentials: Whether the request carried `Authorization`, `Cookie` or `Proxy-Authorization`.
    init?(
        _ received: Response,
        key: String,
        request: URLRequest,
        requestTime: Date,
        responseTime: Date,
        storesPrivateResponses: Bool,
        hadCredentials: Bool
    ) {
        guard
            Self.refusal(of: received, storesPrivateResponses: storesPrivateResponses, hadCredentials: hadCredentials)
                == nil
        else {
            return nil
        }
        let vary = received.headers["Vary"].map(Self.fieldNames) ?? []
        var varyingValues: [String: String?] = [:]
        for name in vary {
            varyingValues[name] = request.value(forHTTPHeaderField: name)
        }
        self.init(
            key: key,
            status: received.status,
            headers: received.headers,
            data: received.data,
            url: received.url,
            varyingValues: varyingValues,
            requestTime: requestTime,
            responseTime: responseTime,
            isShared: !storesPrivateResponses
        )
        let hasValidator = headers.contains("ETag") || headers.contains("Last-Modified")
        guard freshnessLifetime > 0 || hasValidator else {
            return nil
        }
    }

    /// Why a cache must not store `received`, in words, or `nil` when HTTP lets it (it must still have a freshness
    /// lifetime or a validator to be of use: ``unusableReason``).
    static func refusal(of received: Response, storesPrivateResponses: Bool, hadCredentials: Bool) -> String? {
        let control = CacheControl(received.headers["Cache-Control"])
        if received.status != 200 {
            return "status \(received.status) is not stored (only 200 is)"
        }
        if control.noStore {
            return "the response's Cache-Control: no-store"
        }
        if (received.headers["Vary"].map(Self.fieldNames) ?? []).contains("*") {
            return "the response's Vary: *"
        }
        if received.headers.contains("Set-Cookie") {
            return "the response sets a cookie"
        }
        if !storesPrivateResponses, !Self.sharedCacheMayStore(control, hadCredentials: hadCredentials) {
            return control.isPrivate
                ? "a shared cache does not store a response marked private"
                : "a shared cache does not store a response to credentials unless it is marked public, s-maxage or"
                    + " must-revalidate"
        }
        return nil
    }

    /// Why a response that HTTP lets a cache store is not kept: it could never be used.
    static let unusableReason = "the response has neither a freshness lifetime nor a validator"

    /// Whether a shared cache may store a response with `control` (RFC 9111 §3.5): never a `private` one, and for a
    /// request with credentials only one that `public`, `s-maxage` or `must-revalidate` marks as shareable. RFC
    /// 9111 says this of `Authorization`; Fetch applies it to `Cookie` and `Proxy-Authorization` too, since a
    /// response to them is as likely to be someone's own.
    private static func sharedCacheMayStore(_ control: CacheControl, hadCredentials: Bool) -> Bool {
        !control.isPrivate
            && (!hadCredentials || control.isPublic || control.sharedMaxAge != nil || control.mustRevalidate)
    }

    /// A stored response from its parts, with the freshness worked out from them before (as the disk store reads it
    /// back), or `nil` to work it out from the headers and times.
    init(
        key: String,
        status: Int,
        headers: HeaderFields,
        data: Data?,
        url: URL?,
        varyingValues: [String: String?],
        requestTime: Date,
        responseTime: Date,
        freshness: ResponseFreshness? = nil,
        isShared: Bool = false
    ) {
        self.key = key
        self.status = status
        self.headers = headers
        self.data = data
        self.url = url
        self.varyingValues = varyingValues
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.freshness =
            freshness
            ?? ResponseFreshness(
                headers: headers, requestTime: requestTime, responseTime: responseTime, isShared: isShared)
    }

    /// The response's age at `now`: its age on arrival plus the time since.
    func age(at now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    func isFresh(at now: Date) -> Bool {
        freshnessLifetime > age(at: now)
    }

    /// How long the response has been stale at `now`: 0 while it is fresh.
    func staleness(at now: Date) -> TimeInterval {
        max(0, age(at: now) - freshnessLifetime)
    }

    /// Whether the response, stale at `now`, may still be served without waiting for revalidation (RFC 5861):
    /// within `stale-if-error` of its expiry when revalidation failed (`forError`), within `stale-while-revalidate`
    /// otherwise (served at once while a revalidation runs in the background). Never for a fresh response (serve
    /// it as fresh), nor for one marked `must-revalidate` or `no-cache`.
    ///
    /// - Parameters:
    ///   - now: The time of the request.
    ///   - forError: Whether revalidation failed with a transport error or a 500, 502, 503 or 504.
    /// - Returns: `true` when the stale response may be served.
    func isUsableStale(at now: Date, forError: Bool) -> Bool {
        guard !isFresh(at: now), !forbidsStaleUse else {
            return false
        }
        return staleness(at: now) <= (forError ? staleIfError : staleWhileRevalidate)
    }

    /// Whether `request` differs from the stored request in a header the response's `Vary` names.
    func varies(from request: URLRequest) -> Bool {
        varyingValues.contains { name, value in request.value(forHTTPHeaderField: name) != value }
    }

    /// The stored response updated by a `304 Not Modified` (RFC 9111 §4.3.4): its header fields replace the stored
    /// ones of the same name, and its times restart the response's age. A `Set-Cookie` of the 304 is the caller's
    /// alone: it is kept only when `keepingCookies` (for the caller's answer), never in the stored response.
    func refreshed(
        by notModified: Response, requestTime: Date, responseTime: Date, isShared: Bool,
        keepingCookies: Bool = false
    ) -> StoredResponse {
        // Every field of a name the 304 sends replaces every stored field of that name; the 304's repeated fields
        // stay apart.
        let updates = notModified.headers.filter { name, _ in
            !HeaderName.equal(name, "Content-Length") && (keepingCookies || !HeaderName.equal(name, "Set-Cookie"))
        }
        let kept = headers.filter { stored in !updates.contains { HeaderName.equal($0.name, stored.name) } }
        return StoredResponse(
            key: key,
            status: status,
            headers: HeaderFields(kept + updates),
            data: data,
            url: url,
            varyingValues: varyingValues,
            requestTime: requestTime,
            responseTime: responseTime,
            isShared: isShared
        )
    }

    /// The stored response as the answer to `request`.
    func response(answering request: any Request) -> Response {
        Response(status: status, headers: headers, data: data, originalRequest: request, url: url)
            .keepingParsedValues(in: parsedValues)
    }

    /// The stored response as the answer to `request` without a successful revalidation, at `now`: with an `Age`
    /// header of its age in whole seconds (RFC 9111 §5.1) and, when it is stale, `Warning: 110 - "Response is
    /// Stale"`, which ``Response/isStale`` reads. The values parsed from it are shared as for a fresh hit.
    func staleResponse(answering request: any Request, at now: Date) -> Response {
        var headers = self.headers.removing("Age").removing("Warning")
        headers = headers.setting(
            "Age", to: String(WireNumber.clampedInteger(age(at: now), in: 0...WireNumber.maximumDeltaSeconds)))
        if !isFresh(at: now) {
            headers = headers.setting("Warning", to: Response.staleWarning)
        }
        return Response(status: status, headers: headers, data: data, originalRequest: request, url: url)
            .keepingParsedValues(in: parsedValues)
    }

    private static func fieldNames(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter {
            !$0.isEmpty
        }
    }
}
