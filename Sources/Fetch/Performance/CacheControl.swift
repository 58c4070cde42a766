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
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "must-revalidate": mustRevalidate = true
            default: continue
            }
        }
    }
}
