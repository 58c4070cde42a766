import Foundation

/// What a stored response's headers and times say about its freshness (RFC 9111 §4.2, RFC 5861), worked out once
/// when the response is stored, so that a hit parses no header.
///
/// Every duration is finite and within ``range`` (``lifetime`` may be negative: an `Expires` before `Date`): the
/// headers' numbers go through ``WireNumber/deltaSeconds(_:)``, and what dates yield is clamped, so that a server's
/// `Age: 1e300` or a damaged file cannot make an age that traps when it is rendered.
package struct ResponseFreshness: Sendable, Equatable {
    /// The largest duration kept: 2^31 seconds (RFC 9111 §1.2.2), about 68 years.
    package static let maximum = TimeInterval(WireNumber.maximumDeltaSeconds)
    /// The range of every duration: ``lifetime`` may be negative, the others are not.
    package static let range = -maximum...maximum

    /// Whether each use needs revalidation: `Cache-Control: no-cache`, or no freshness information at all.
    package var requiresRevalidation: Bool
    /// How long the response is fresh after it was generated: `max-age`, else `Expires` minus `Date`, else 0.
    package var lifetime: TimeInterval
    /// The response's age when it arrived (RFC 9111 §4.2.3), from `Date` and `Age`.
    package var initialAge: TimeInterval
    /// `must-revalidate` or `no-cache`: once stale, the response must not be served without revalidation, even
    /// under `stale-while-revalidate` or `stale-if-error` (RFC 9111 §4.2.4).
    package var forbidsStaleUse: Bool
    /// `stale-while-revalidate`, in seconds; 0 when absent.
    package var staleWhileRevalidate: TimeInterval
    /// `stale-if-error`, in seconds; 0 when absent.
    package var staleIfError: TimeInterval

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

    /// The freshness of a response with `headers`, requested at `requestTime` and received at `responseTime`, for
    /// a private cache or (`isShared`) a shared one, where `s-maxage` replaces `max-age` and, like
    /// `proxy-revalidate`, forbids stale use (RFC 9111 §5.2.2.8, §5.2.2.10).
    init(headers: HeaderFields, requestTime: Date, responseTime: Date, isShared: Bool = false) {
        func value(_ name: String) -> String? {
            headers[name]
        }
        let control = CacheControl(value("Cache-Control"))
        let date = value("Date").flatMap(HTTPDate.date(from:)) ?? responseTime
        let sharedMaxAge = isShared ? control.sharedMaxAge : nil
        lifetime = Self.clamped(
            sharedMaxAge ?? Self.lifetime(control: control, expires: value("Expires"), date: date))
        requiresRevalidation = control.noCache || lifetime <= 0
        forbidsStaleUse =
            control.noCache || control.mustRevalidate || (isShared && (control.proxyRevalidate || sharedMaxAge != nil))
        staleWhileRevalidate = Self.clamped(control.staleWhileRevalidate ?? 0)
        staleIfError = Self.clamped(control.staleIfError ?? 0)
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let ageValue = value("Age").map(Self.ageSeconds) ?? 0
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        initialAge = Self.clamped(max(apparentAge, ageValue + responseDelay))
    }

    /// Whether every duration is finite and within ``range`` (the durations of lifetimes and windows not negative):
    /// what the disk store checks of a file's values before it serves them.
    package var isValid: Bool {
        Self.range.contains(lifetime) && (0...Self.maximum).contains(initialAge)
            && (0...Self.maximum).contains(staleWhileRevalidate) && (0...Self.maximum).contains(staleIfError)
    }

    /// An `Age` value in seconds (RFC 9111 §5.1): the first member of a list, as delta-seconds; an invalid value
    /// (`-1`, `1e300`, `inf`) is ignored, as 0.
    private static func ageSeconds(_ value: String) -> TimeInterval {
        let first = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return WireNumber.deltaSeconds(first).map(TimeInterval.init) ?? 0
    }

    /// `value` within ``range``; NaN (which no arithmetic here makes, but a date may) as 0.
    private static func clamped(_ value: TimeInterval) -> TimeInterval {
        value.isNaN ? 0 : min(max(value, range.lowerBound), range.upperBound)
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
