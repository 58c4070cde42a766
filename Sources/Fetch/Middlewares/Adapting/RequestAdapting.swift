import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Changes requests before they are sent: adds a token, a user agent, a request id.
///
/// Adapters run in order in ``Middleware/adapt(_:)``. An adapter that completes synchronously keeps the whole call
/// synchronous, as tests with `MockPerformer` expect; one that needs to wait may complete later from any thread.
public protocol RequestAdapting: Sendable {
    /// Adapts `request`, or fails it.
    ///
    /// - Parameters:
    ///   - request: The request about to be sent.
    ///   - completion: Called exactly once with the request to send, or the error that fails the call.
    func adapt(_ request: URLRequest, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void)
}

/// A ``RequestAdapting`` made from a closure, with ready ones for common headers.
///
/// ```swift
/// let performer = session.with(
///     .adapt([
///         .header("User-Agent", "Fetch-Example/1.0"),
///         .requestID(),
///         RequestAdapter { request in
///             request.setValue(Locale.current.identifier, forHTTPHeaderField: "Accept-Language")
///         },
///     ]))
/// ```
public struct RequestAdapter: RequestAdapting {
    private let body: @Sendable (URLRequest, @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void

    /// An adapter that changes the request synchronously; a thrown error fails the call with that error.
    ///
    /// - Parameter adapt: Changes the request in place.
    public init(_ adapt: @escaping @Sendable (inout URLRequest) throws -> Void) {
        body = { request, completion in
            var request = request
            completion(Result { try adapt(&request) }.map { request })
        }
    }

    /// An adapter that needs to wait, for example for a value from an actor; it runs in a new `Task`.
    ///
    /// - Parameter adapt: Returns the request to send, or throws the error that fails the call.
    /// - Returns: The adapter.
    public static func async(_ adapt: @escaping @Sendable (URLRequest) async throws -> URLRequest) -> RequestAdapter {
        RequestAdapter(callback: { request, completion in
            Task {
                do {
                    completion(.success(try await adapt(request)))
                } catch {
                    completion(.failure(error))
                }
            }
        })
    }

    private init(
        callback: @escaping @Sendable (URLRequest, @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void
    ) {
        body = callback
    }

    /// Runs the adapter.
    ///
    /// - Parameters:
    ///   - request: The request about to be sent.
    ///   - completion: Called exactly once with the request to send, or the error.
    public func adapt(_ request: URLRequest, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        body(request, completion)
    }
}

extension RequestAdapting where Self == RequestAdapter {
    /// Sets a header field, unless the request already sets it (the request's own headers win).
    ///
    /// A name or value that cannot be sent (a line break in the value, say) fails the call with
    /// ``FetchError/invalidRequest(_:)``.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value.
    /// - Returns: The adapter.
    public static func header(_ name: String, _ value: String) -> RequestAdapter {
        RequestAdapter { request in
            let target = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")"
            try HeaderValidation.validate(name: name, value: value, in: target)
            if request.value(forHTTPHeaderField: name) == nil {
                request.setValue(value, forHTTPHeaderField: name)
            }
        }
    }

    /// Sets `X-Request-ID` to a new UUID on every request that has none, so that client and server logs can be
    /// matched.
    ///
    /// - Parameter name: The field name. The default is `X-Request-ID`.
    /// - Returns: The adapter.
    public static func requestID(_ name: String = "X-Request-ID") -> RequestAdapter {
        RequestAdapter { request in
            if request.value(forHTTPHeaderField: name) == nil {
                request.setValue(UUID().uuidString, forHTTPHeaderField: name)
            }
        }
    }
}
