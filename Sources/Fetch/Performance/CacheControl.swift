import Foundation

/// The `Cache-Control` directives that a private client cache acts on (RFC 9111 §5.2).
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
            let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
            switch name {
            case "max-age":
                // An invalid max-age makes the response stale (RFC 9111 §4.2.1), not fresh forever.
                maxAge = argument.map { TimeInterval($0.trimmingCharacters(in: ["\""])) ?? 0 } ?? 0
            case "stale-while-revalidate":
                staleWhileRevalidate = argument.flatMap(Self.seconds)
            case "stale-if-error":
                staleIfError = argument.flatMap(Self.seconds)
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "must-revalidate": mustRevalidate = true
            default: continue
            }
        }
    }

    /// A directive's delta-seconds argument (quotes tolerated); `nil` when it is not a non-negative number.
    private static func seconds(_ argument: String) -> TimeInterval? {
        guard let value = TimeInterval(argument.trimmingCharacters(in: ["\""])), value >= 0, value.isFinite else {
            return nil
        }
        return value
    }
}
