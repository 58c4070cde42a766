import Foundation

extension Response {
    /// The `Warning` value a ``ResponseCache`` gives a response it serves stale (RFC 9111 obsoleted the field,
    /// but its code 110 still says it plainly, and other caches send it too).
    static let staleWarning = #"110 - "Response is Stale""#

    /// Whether the response was served stale by a cache: from a ``ResponseCache`` under `stale-while-revalidate`
    /// or `stale-if-error`, or with its offline policy; or by a cache on the way that said so.
    ///
    /// It reads the `Warning` header's code `110` ("Response is Stale"), which ``ResponseCache`` adds to such
    /// responses together with an `Age` header; a response from the network, a fresh hit and a revalidated response
    /// have neither.
    ///
    /// ```swift
    /// let response: Response = try await performer.perform(GetUser(id: 1))
    /// if response.isStale {
    ///     print("offline: showing data \(response.headers["Age"] ?? "?") seconds old")
    /// }
    /// ```
    public var isStale: Bool {
        guard let warning = headers["Warning"] else {
            return false
        }
        // One or more comma-separated warnings, each starting with its three-digit code.
        return warning.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("110 ") }
    }
}
