import Foundation

/// What a stored response's headers and times say about its freshness (RFC 9111 §4.2, RFC 5861), worked out once
/// when the response is stored, so that a hit parses no header.
struct ResponseFreshness: Sendable, Equatable {
    /// Whether each use needs revalidation: `Cache-Control: no-cache`, or no freshness information at all.
    var requiresRevalidation: Bool
    /// How long the response is fresh after it was generated: `max-age`, else `Expires` minus `Date`, else 0.
    var lifetime: TimeInterval
    /// The response's age when it arrived (RFC 9111 §4.2.3), from `Date` and `Age`.
    var initialAge: TimeInterval
    /// `must-revalidate` or `no-cache`: once stale, the response must not be served without revalidation, even
    /// under `stale-while-revalidate` or `stale-if-error` (RFC 9111 §4.2.4).
    var forbidsStaleUse: Bool
    /// `stale-while-revalidate`, in seconds; 0 when absent.
    var staleWhileRevalidate: TimeInterval
    /// `stale-if-error`, in seconds; 0 when absent.
    var staleIfError: TimeInterval

    /// The values themselves, as the disk store reads them back from a file.
    init(
        requiresRevalidation: Bool,
        lifetime: TimeInterval,
        initialAge: TimeInterval,
        forbidsStaleUse: Bool,
        staleWhileRevalidate: TimeInterval,
        staleIfError: TimeInterval
    ) {
        self.requiresRevalidation = requiresRevalidation
        self.lifetime = lifetime
        self.initialAge = initialAge
        self.forbidsStaleUse = forbidsStaleUse
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
    }

    /// The freshness of a response with `headers`, requested at `requestTime` and received at `responseTime`.
    init(headers: [String: String], requestTime: Date, responseTime: Date) {
        func value(_ name: String) -> String? {
            StoredResponse.value(forHeader: name, in: headers)
        }
        let control = CacheControl(value("Cache-Control"))
        let date = value("Date").flatMap(HTTPDate.date(from:)) ?? responseTime
        lifetime = Self.lifetime(control: control, expires: value("Expires"), date: date)
        requiresRevalidation = control.noCache || lifetime <= 0
        forbidsStaleUse = control.noCache || control.mustRevalidate
        staleWhileRevalidate = control.staleWhileRevalidate ?? 0
        staleIfError = control.staleIfError ?? 0
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let ageValue = value("Age").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        initialAge = max(apparentAge, ageValue + responseDelay)
    }

    /// `max-age`, else `Expires` minus `Date`, else 0 (RFC 9111 §4.2.1).
    private static func lifetime(control: CacheControl, expires: String?, date: Date) -> TimeInterval {
        if let maxAge = control.maxAge {
            return maxAge
        }
        guard let expires else {
            return 0
        }
        guard let expiresDate = HTTPDate.date(from: expires) else {
            return 0  // an invalid Expires, such as "0", means already expired (RFC 9111 §5.3)
        }
        return expiresDate.timeIntervalSince(date)
    }
}
