import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `RequestPerforming` double that answers from canned responses and completes synchronously, before
/// `perform` returns.
///
/// Answers go through exactly the same status, error-parser and decoding path as `Session`, so a test of a model or
/// of an error parser with a `MockPerformer` proves what the app will do with the same bytes:
///
/// ```swift
/// let mock = MockPerformer { _ in MockResponse(status: 200, data: Data(#"{"id":1,"name":"Ada"}"#.utf8)) }
/// let result = Captured<Result<User, any Error>>()
/// mock.perform(GetUser(id: 1), completion: result.capture)
/// #expect(try result.value?.get().name == "Ada")
/// ```
///
/// With ``init(routes:)`` it answers each method and path differently, and a request that no route matches fails
/// with an error that names it and the routes.
public final class MockPerformer: RequestPerforming {
    /// Works out the answer to a request: a response, or a thrown transport error such as `URLError(.timedOut)`.
    typealias Handler = @Sendable (any Request) throws -> MockResponse

    /// The mock's pipeline: no middlewares, and a transport that answers from the handler before it returns.
    public let pipeline: Pipeline

    /// Creates a performer that answers each request with what `handler` returns or throws.
    ///
    /// One answer for every request is `MockPerformer { _ in .json(#"{"id": 1}"#) }`; a transport failure is
    /// thrown, `MockPerformer { _ in throw URLError(.timedOut) }`, and arrives as the `FetchError` that `Session`
    /// would deliver (`URLError(.timedOut)` as `FetchError.timedOut`), any other error unchanged.
    ///
    /// - Parameter handler: Called synchronously with each request that could be built.
    public init(_ handler: @escaping @Sendable (any Request) throws -> MockResponse) {
        self.pipeline = Pipeline(MockTransport(handler: handler))
    }

    /// Creates a performer that answers by method and path, and fails loudly, naming the request and the routes,
    /// for any request that no route matches.
    ///
    /// - Parameter routes: The answers. When several match, the first wins.
    public convenience init(routes: [Route]) {
        self.init { request in
            guard let route = routes.first(where: { $0.matches(request) }) else {
                throw NoAnswer(request: request, routes: routes)
            }
            return try route.answer.get()
        }
    }

    /// Answers `request` synchronously: `completion` has been called when this method returns.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once, before this method returns.
    /// - Returns: A handle whose `cancel()` does nothing, since the call has already finished.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }
}

/// The transport of a ``MockPerformer``: answers each request from the handler, before `send` returns.
private struct MockTransport: WebSocketTransport {
    let handler: MockPerformer.Handler

    func send(
        _ request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        completion(MockExchange.response(for: request) { _ in try handler(request) })
        return CompletedCall()
    }

    func stream(
        _ request: any Request,
        maximumBufferSize: Int,
        completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
    ) -> any CancellableCall {
        var chunks: [Data]?
        let answer = MockExchange.response(for: request) { _ in
            let mock = try handler(request)
            chunks = mock.chunks
            return mock
        }
        completion(
            answer.map { response in
                guard let chunks else {
                    return ResponseStream(response: response, chunks: .whole(response.data))
                }
                return ResponseStream(response: response, chunks: .pieces(chunks))
            })
        return CompletedCall()
    }

    func openWebSocket(
        _ request: any Request,
        maximumMessageSize: Int,
        compression: WebSocket.Compression,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        var server: MockWebSocket?
        let answer = MockExchange.response(for: request) { _ in
            let mock = try handler(request)
            server = mock.webSocket
            return mock
        }
        completion(
            answer.map { response in
                guard let server else {
                    return response
                }
                return Response(
                    status: response.status, headers: response.headers, originalRequest: request, url: response.url,
                    webSocketChannel: server.open(maximumMessageSize: maximumMessageSize))
            })
        return CompletedCall()
    }
}

extension AsyncThrowingStream where Element == Data, Failure == any Error {
    /// A body of `pieces`, in order.
    static func pieces(_ pieces: [Data]) -> AsyncThrowingStream {
        AsyncThrowingStream { continuation in
            for piece in pieces {
                continuation.yield(piece)
            }
            continuation.finish()
        }
    }

    /// A body of `data`, as one piece.
    static func whole(_ data: Data?) -> AsyncThrowingStream {
        pieces(data.map { [$0] } ?? [])
    }
}

extension MockPerformer {
    /// One canned answer of a ``MockPerformer``, for one method and path.
    public struct Route: Sendable {
        /// The method the route answers.
        package let method: HTTPMethod

        /// The URL path the route answers, such as `/users/1`, or a whole absolute URL string.
        package let path: String

        let answer: Result<MockResponse, any Error>

        /// Creates a route that answers with a response.
        ///
        /// - Parameters:
        ///   - method: The method to match.
        ///   - path: The URL path to match exactly, a trailing `/` included (`/users/1`, `/alice/`), or a whole
        ///     absolute URL string.
        ///   - response: The answer.
        public init(_ method: HTTPMethod, _ path: String, _ response: MockResponse) {
            self.method = method
            self.path = path
            self.answer = .success(response)
        }

        /// Creates a route that fails as a transport failure would.
        ///
        /// - Parameters:
        ///   - method: The method to match.
        ///   - path: The URL path to match exactly, or a whole absolute URL string.
        ///   - error: The failure, for example `URLError(.notConnectedToInternet)`.
        public init(_ method: HTTPMethod, _ path: String, error: any Error) {
            self.method = method
            self.path = path
            self.answer = .failure(error)
        }

        /// A route that answers `GET path`.
        ///
        /// - Parameters:
        ///   - path: The URL path to match.
        ///   - response: The answer.
        /// - Returns: The route.
        public static func get(_ path: String, _ response: MockResponse) -> Route {
            Route(.get, path, response)
        }

        /// A route that answers `POST path`.
        ///
        /// - Parameters:
        ///   - path: The URL path to match.
        ///   - response: The answer.
        /// - Returns: The route.
        public static func post(_ path: String, _ response: MockResponse) -> Route {
            Route(.post, path, response)
        }

        /// A route that answers `method path`, for any method:
        /// `.on(.delete, "/users/7", MockResponse(status: 204))`.
        ///
        /// - Parameters:
        ///   - method: The method to match, such as `.put`, `.patch`, `.delete` or `.head`.
        ///   - path: The URL path to match.
        ///   - response: The answer.
        /// - Returns: The route.
        public static func on(_ method: HTTPMethod, _ path: String, _ response: MockResponse) -> Route {
            Route(method, path, response)
        }

        /// `GET /users/1`.
        var description: String { "\(method) \(path)" }

        /// Whether the route answers `request`: the same method, and the same path as written, a trailing `/`
        /// included (`/alice/` answers `/alice/`, not `/alice`; `/` answers a URL with an empty path, which is sent
        /// as `/`), or the same whole URL.
        func matches(_ request: any Request) -> Bool {
            guard request.method == method else {
                return false
            }
            // `URL.path` drops a trailing slash; `path(percentEncoded:)` keeps the path as written.
            let requested = request.url.path(percentEncoded: false)
            return (requested.isEmpty ? "/" : requested) == path || request.url.absoluteString == path
        }
    }

    /// The failure of a request that no route of a ``MockPerformer`` matches: it names the request and the routes.
    package struct NoAnswer: Error, CustomStringConvertible {
        /// The request that found no route.
        package let request: any Request

        /// The routes the performer has.
        package let routes: [Route]

        /// `MockPerformer has no route for GET http://host/users/2 (path /users/2); its routes: GET /users/1`.
        package var description: String {
            let known = routes.isEmpty ? "none" : routes.map(\.description).joined(separator: ", ")
            return "MockPerformer has no route for \(request.method) \(request.url.absoluteString)"
                + " (path \(request.url.path(percentEncoded: false))); its routes: \(known)"
        }
    }
}
