/// The header fields and query items whose values Fetch hides wherever it prints or records a request: cURL
/// commands, events and recordings.
///
/// The ``secrets`` are always hidden; the names you pass add to them. Showing one of the secrets takes the
/// separately named `revealing:`, so that no list of extra names can leak a token by accident.
///
/// ```swift
/// let redaction = Redaction(adding: ["X-API-Key"])  // also hides Authorization, Cookie, …
/// ```
public struct Redaction: Sendable, Hashable {
    /// Hidden unless revealed explicitly: `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let secrets: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    /// The secrets alone.
    public static let `default` = Redaction()

    /// Every name whose value is hidden, as given (matching ignores case).
    public let names: Set<String>

    /// Hides the ``secrets`` and `names`.
    ///
    /// - Parameters:
    ///   - names: Header fields and query items to hide besides the secrets.
    ///   - revealed: Secrets to show after all, for a debugging session that needs them. The default is none.
    public init(adding names: Set<String> = [], revealing revealed: Set<String> = []) {
        let shownSecrets = Self.secrets.filter { secret in revealed.contains { HeaderName.equal($0, secret) } }
        self.names = Self.secrets.subtracting(shownSecrets).union(names)
    }

    /// Whether the value of the header field or query item `name` is hidden, ignoring case.
    ///
    /// - Parameter name: The field or query item name.
    /// - Returns: Whether its value is hidden.
    public func hides(_ name: String) -> Bool {
        names.contains { HeaderName.equal($0, name) }
    }
}
