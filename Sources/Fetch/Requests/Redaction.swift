/// The one list of secret names Fetch knows: the header fields, query parameters, form fields and JSON keys whose
/// values are credentials. Fetch keeps them out of what it prints and records (`curl` commands and HAR recordings,
/// where their values are written as `REDACTED`), keys a private ``ResponseCache`` by them, and strips them from a
/// request redirected to another origin.
///
/// The secrets a user cannot be expected to list are always known, matched without regard to case:
///
/// - the header fields `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-API-Key`, `Api-Key` and
///   `X-Session-Id`, and every header field whose name contains `token`, `secret`, `password`, `passwd`, `apikey`,
///   `api-key`, `api_key` or `signature` (`X-Auth-Token`, `X-Client-Secret`, `X-Amz-Signature`);
/// - query parameters, fields of form and multipart bodies and keys of JSON bodies at any depth (of requests and of
///   responses) with those same names (`access_token`, `client_secret`, `password`, `api_key`), and besides them
///   `pwd`, `key`, `code`, `sig`, `session_id` and `sessionid`.
///
/// The names given add to them, they never replace them, and need not repeat them; each is a secret as a header
/// field, a query parameter, a form field and a JSON key alike:
///
/// ```swift
/// let redaction: Redaction = ["X-Session", "api_key"]
/// ```
///
/// In a recording, a redacted value is replaced wherever it is written: in the headers, the cookies (every cookie's
/// value is a secret, sent or set), the URL and its query parameters, the fields of a form or multipart body and the
/// keys at any depth of a body that parses as JSON (whatever its content type says), and anywhere else in the file
/// its text occurs (a server that echoes the request or a cookie, a `Location` that carries a token), so the secret
/// never reaches the file. Values shorter than six characters are replaced where they are named, but not searched
/// for in the rest of the entry, where they would replace innocent text.
public struct Redaction: Sendable, Equatable {
    /// What a redacted value is replaced with: `REDACTED`.
    package static let placeholder = "REDACTED"

    /// The header fields that are always secrets, besides those whose name contains one of ``secretNameParts``.
    /// Query parameters, form fields and JSON keys of these names are secrets too.
    package static let defaultHeaders = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key", "Api-Key", "X-Session-Id",
    ]

    /// The query parameters, form fields and JSON keys that are always secrets, besides ``defaultHeaders`` and the
    /// names that contain one of ``secretNameParts``: names too short or too common to be matched as parts.
    package static let defaultParameters = ["pwd", "key", "code", "sig", "session_id", "sessionid"]

    /// The parts of a name that make it a secret's, whatever the rest of it: `X-Auth-Token`, `client_secret`.
    static let secretNameParts = ["token", "secret", "password", "passwd", "apikey", "api-key", "api_key", "signature"]

    /// The length from which a redacted value is also searched for, and replaced, in the rest of an entry.
    package static let minimumSearchedLength = 6

    /// Only the secrets that are always redacted.
    package static let `default` = Redaction(headers: [])

    /// The header fields redacted, matched without regard to case: the defaults, then those added.
    package let headers: [String]

    /// The query parameters (and form and multipart fields, and JSON keys) redacted, matched without regard to case:
    /// the defaults, then those added.
    package let queryItems: [String]

    /// A redaction of the secrets always redacted, of the header fields `headers` and of the query parameters
    /// (form fields, JSON keys) `queryItems`.
    package init(headers: [String] = [], queryItems: [String] = []) {
        self.headers = Self.adding(headers, to: Self.defaultHeaders)
        self.queryItems = Self.adding(queryItems, to: Self.defaultHeaders + Self.defaultParameters)
    }

    private static func adding(_ names: [String], to defaults: [String]) -> [String] {
        var all = defaults
        for name in names where !all.contains(where: { HeaderName.equal($0, name) }) {
            all.append(name)
        }
        return all
    }

    /// Whether the value of the header field `name` is redacted.
    ///
    /// - Parameter name: The field name, in any case.
    /// - Returns: `true` for the defaults, the names containing one of ``secretNameParts``, and the names added.
    package func redactsHeader(_ name: String) -> Bool {
        headers.contains { HeaderName.equal($0, name) } || Self.namesSecret(name)
    }

    /// Whether the value of the query parameter, form or multipart field or JSON key `name` is redacted.
    ///
    /// - Parameter name: The parameter's name, decoded, in any case.
    /// - Returns: `true` for the defaults, the names containing one of ``secretNameParts``, and the names added.
    package func redactsQueryItem(_ name: String) -> Bool {
        queryItems.contains { HeaderName.equal($0, name) } || Self.namesSecret(name)
    }

    /// Whether `name` contains one of ``secretNameParts``, in any case.
    private static func namesSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretNameParts.contains { lowered.contains($0) }
    }
}

// MARK: - ExpressibleByArrayLiteral

extension Redaction: ExpressibleByArrayLiteral {
    /// The secrets always redacted and `names`, each as a header field, a query parameter, a form field and a
    /// JSON key: `["X-API-Key", "api_key"]`.
    ///
    /// - Parameter names: The names to redact besides the defaults, in any case.
    public init(arrayLiteral names: String...) {
        self.init(headers: names, queryItems: names)
    }
}
