import Foundation

/// The `Cache-Control` directives that a client cache acts on (RFC 9111 §5.2).
///
/// Every delta-seconds argument is read by ``WireNumber/deltaSeconds(_:)`` (digits only, at most 2^31), so no value a
/// server sends can make a duration negative, infinite or NaN.
package struct CacheControl: Sendable {
    /// `max-age=N`: the response is fresh for N seconds.
    package var maxAge: TimeInterval?
    /// `no-store`: the response must not be stored.
    package var noStore = false
    /// `no-cache`: the response may be stored, but must be revalidated before each use.
    package var noCache = false
    /// `private`: only a private cache may store the response.
    package var isPrivate = false
    /// `must-revalidate`: once stale, the response must not be used without revalidation.
    package var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches only.
    package var proxyRevalidate = false
    /// `public`: any cache may store the response, a shared one even for a request with `Authorization`.
    package var isPublic = false
    /// `s-maxage=N`: the lifetime for shared caches; its presence also lets a shared cache store a response to a
    /// request with `Authorization` (RFC 9111 §3.5). `nil` when absent or invalid.
    package var sharedMaxAge: TimeInterval?
    /// `stale-while-revalidate=N` (RFC 5861 §3): for N seconds after it becomes stale, the response may be served
    /// while it is revalidated in the background.
    package var staleWhileRevalidate: TimeInterval?
    /// `stale-if-error=N` (RFC 5861 §4): for N seconds after it becomes stale, the response may be served when
    /// revalidating it fails (a transport error, or a 500, 502, 503 or 504).
    package var staleIfError: TimeInterval?

    /// Reads the directives of a `Cache-Control` value; unknown directives are ignored, as RFC 9111 requires.
    package init(_ value: String?) {
        guard let value else {
            return
        }
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            guard let rawName = parts.first else {
                continue
            }
            let name = Self.trimmed(rawName, of: Self.whitespace).lowercased()
            let argument = parts.count > 1 ? Self.trimmed(parts[1], of: Self.whitespace) : nil
            switch name {
            case "max-age":
                maxAge = argument.map(Self.deltaSeconds) ?? 0
            case "stale-while-revalidate":
                staleWhileRevalidate = argument.flatMap(Self.validDeltaSeconds)
            case "stale-if-error":
                staleIfError = argument.flatMap(Self.validDeltaSeconds)
            case "s-maxage":
                sharedMaxAge = argument.flatMap(Self.validDeltaSeconds)
            case "public": isPublic = true
            case "proxy-revalidate": proxyRevalidate = true
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "must-revalidate": mustRevalidate = true
            default: continue
            }
        }
    }

    private static let whitespace: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t")]
    private static let quote: Set<UInt8> = [UInt8(ascii: "\"")]

    /// `text` without the bytes of `set` at either end. Foundation's `trimmingCharacters(in:)` goes through
    /// `NSString` on Linux and cost more than the rest of a hit from the disk cache, which reads this header each time.
    private static func trimmed(_ text: Substring, of set: Set<UInt8>) -> String {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !set.contains($0) }),
            let last = bytes.lastIndex(where: { !set.contains($0) })
        else {
            return ""
        }
        return String(text[first...last])
    }

    /// A delta-seconds argument, optionally quoted, as ``WireNumber/deltaSeconds(_:)`` reads it, or `nil` when it
    /// is not digits: for directives whose absence, not zero, is the safe reading.
    private static func validDeltaSeconds(_ argument: String) -> TimeInterval? {
        WireNumber.deltaSeconds(trimmed(Substring(argument), of: quote)).map(TimeInterval.init)
    }

    /// A delta-seconds argument (RFC 9111 §1.2.2): digits only, optionally quoted; one larger than 2^31 is read as
    /// 2^31. Anything else (`-1`, `1e9`, `inf`) is invalid, which makes the response stale (RFC 9111 §4.2.1), not
    /// fresh forever.
    private static func deltaSeconds(_ argument: String) -> TimeInterval {
        validDeltaSeconds(argument) ?? 0
    }
}
