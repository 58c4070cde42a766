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
                maxAge = argument.map(Self.deltaSeconds) ?? 0
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "must-revalidate": mustRevalidate = true
            default: continue
            }
        }
    }

    /// A delta-seconds argument (RFC 9111 §1.2.2): digits only, optionally quoted; one larger than 2^31 is read as
    /// 2^31. Anything else (`-1`, `1e9`, `inf`) is invalid, which makes the response stale (RFC 9111 §4.2.1), not
    /// fresh forever.
    private static func deltaSeconds(_ argument: String) -> TimeInterval {
        let digits = argument.trimmingCharacters(in: ["\""])
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return 0
        }
        return min(TimeInterval(digits) ?? .infinity, 2_147_483_648)
    }
}
