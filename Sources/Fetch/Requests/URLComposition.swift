import Foundation

/// Composes a base URL, path segments and query items into one URL, without force unwraps and without doubling or
/// losing a slash. Used by ``Endpoint/url()`` and ``APIRequest``.
enum URLComposition {
    /// The URL of `base` extended by `pathSegments` and `queryItems`.
    ///
    /// - Each segment is percent-encoded on its own (a `/` inside one is `%2F`) and joined to the base path with
    ///   exactly one `/`, whether or not the base path ends with one. A final empty segment adds a trailing slash.
    /// - Query names and values are percent-encoded (see ``PercentEncoding/component(_:)``) and appended after the
    ///   base URL's own query, which is kept as it is. A `nil` value sends the name alone, as in `?flag`.
    /// - Throws: ``FetchError/invalidRequest(_:)`` when `base` is not absolute, a segment is `.` or `..` (which
    ///   servers and proxies resolve, so the request would reach another path), an empty segment is not the last
    ///   one (it would double a slash), or Foundation cannot make the URL.
    static func url(base: URL, pathSegments: [String], queryItems: [URLQueryItem]) throws -> URL {
        func failure(_ reason: String) -> FetchError {
            let segments = pathSegments.map(\.debugDescription).joined(separator: ", ")
            return FetchError.invalidRequest(
                "cannot make a URL from \(base.absoluteString) and path [\(segments)]: \(reason)"
            )
        }
        guard let scheme = base.scheme, !scheme.isEmpty else {
            throw failure("the base URL is not absolute (it has no scheme such as https)")
        }
        guard !pathSegments.isEmpty || !queryItems.isEmpty else {
            return base
        }
        for (index, segment) in pathSegments.enumerated() {
            if segment == "." || segment == ".." {
                throw failure("the path segment \(segment.debugDescription) would be resolved to another path")
            }
            if segment.isEmpty, index < pathSegments.count - 1 {
                throw failure("path segment \(index) is empty, which would double a slash")
            }
        }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
            throw failure("Foundation cannot split the base URL into its components")
        }
        if !pathSegments.isEmpty {
            var path = components.percentEncodedPath
            if path.hasSuffix("/") {
                path.removeLast()
            }
            for segment in pathSegments {
                path += "/" + PercentEncoding.component(segment)
            }
            components.percentEncodedPath = path
        }
        if !queryItems.isEmpty {
            let added = queryItems.map { item in
                let name = PercentEncoding.component(item.name)
                return item.value.map { "\(name)=\(PercentEncoding.component($0))" } ?? name
            }
            let existing = components.percentEncodedQuery.map { $0.isEmpty ? [] : [$0] } ?? []
            components.percentEncodedQuery = (existing + added).joined(separator: "&")
        }
        guard let url = components.url else {
            throw failure("Foundation cannot make a URL of \(components.description)")
        }
        return url
    }
}
