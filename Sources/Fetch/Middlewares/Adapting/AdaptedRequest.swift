import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as an adapter or authenticator changed it: the `URLRequest` to send, and the request it came from.
///
/// The adapting and authenticating middlewares pass these on inward, so a `SpyPerformer` underneath records exactly what
/// went out; ``original`` is the request the app made.
public struct AdaptedRequest: Request {
    /// The request the app made.
    public let original: any Request

    /// The request to send.
    package let urlRequest: URLRequest

    /// Creates an adapted request.
    ///
    /// - Parameters:
    ///   - original: The request the app made.
    ///   - urlRequest: The request to send in its place.
    public init(original: any Request, urlRequest: URLRequest) {
        self.original = original
        self.urlRequest = urlRequest
    }

    /// The URL of the adapted `URLRequest`.
    public var url: URL { urlRequest.url ?? original.url }

    /// The method of the adapted `URLRequest`.
    public var method: HTTPMethod { urlRequest.httpMethod.map(HTTPMethod.init(rawValue:)) ?? original.method }

    /// The header fields of the adapted `URLRequest`.
    public var headers: HeaderFields {
        HeaderFields((urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// The body of the adapted `URLRequest`.
    public var body: Data? { urlRequest.httpBody }

    /// The timeout of the original request, so that `nil` still means the session's own.
    public var timeout: TimeInterval? { original.timeout }

    /// The body limit of the original request, so that `nil` still means the session's own.
    public var maximumResponseSize: Int? { original.maximumResponseSize }

    /// The adapted `URLRequest`, after checking its method and header fields as any request's are checked.
    ///
    /// - Returns: The adapted `URLRequest`.
    /// - Throws: ``FetchError/invalidRequest(_:)`` when an adapter set a method or header that cannot be sent.
    public func makeURLRequest() throws -> URLRequest {
        try HeaderValidation.validate(urlRequest, for: self)
        return urlRequest
    }
}
