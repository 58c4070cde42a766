import Foundation

/// A group of endpoints of one API that share a base URL, usually an enum with a case per endpoint.
///
/// Each endpoint names its path as segments, which are percent-encoded one by one, so user input can go straight
/// in: a `/` or `?` inside a segment stays part of it.
///
/// ```swift
/// enum GitHub: Endpoint {
///     case user(name: String)
///     case search(query: String)
///
///     var baseURL: URL { URL(string: "https://api.github.com")! }
///
///     var pathSegments: [String] {
///         switch self {
///         case .user(let name): ["users", name]
///         case .search: ["search", "repositories"]
///         }
///     }
///
///     var queryItems: [URLQueryItem] {
///         switch self {
///         case .user: []
///         case .search(let query): [URLQueryItem(name: "q", value: query)]
///         }
///     }
/// }
///
/// let request = APIRequest(GitHub.user(name: "apple"))
/// ```
public protocol Endpoint: Sendable {
    /// The URL the paths are relative to, such as `https://api.example.com/v2`; with or without a trailing slash,
    /// and with or without query items of its own, which every endpoint keeps.
    var baseURL: URL { get }

    /// The path below ``baseURL``, one unencoded segment per element: `["users", "ada lovelace"]` is
    /// `/users/ada%20lovelace`. A final empty segment adds a trailing slash.
    var pathSegments: [String] { get }

    /// Query items added after the base URL's own, unencoded; Fetch percent-encodes each name and value. The
    /// default is none.
    var queryItems: [URLQueryItem] { get }

    /// The method a request for this endpoint uses unless it sets another. The default is ``HTTPMethod/get``.
    var method: HTTPMethod { get }
}

extension Endpoint {
    /// The default query items: none.
    public var queryItems: [URLQueryItem] { [] }

    /// The default method: ``HTTPMethod/get``.
    public var method: HTTPMethod { .get }

    /// The endpoint's URL: ``baseURL`` extended by ``pathSegments`` and ``queryItems``, each percent-encoded.
    ///
    /// - Returns: The absolute URL of the endpoint.
    /// - Throws: ``FetchError/invalidRequest(_:)`` with the reason when no URL can be made: the base URL is not
    ///   absolute, a segment is `.` or `..`, or an empty segment is not the last one.
    package func url() throws -> URL {
        try URLComposition.url(base: baseURL, pathSegments: pathSegments, queryItems: queryItems)
    }
}
