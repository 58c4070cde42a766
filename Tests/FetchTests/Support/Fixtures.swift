import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request whose every part a test sets.
struct TestRequest: Request {
    var url: URL
    var method: HTTPMethod = .get
    var headers: HeaderFields
    var body: Data?
    var timeout: TimeInterval?

    init(
        _ url: URL,
        method: HTTPMethod = .get,
        headers: HeaderFields? = nil,
        body: Data? = nil,
        timeout: TimeInterval? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers ?? [:]
        self.body = body
        self.timeout = timeout
    }

    init(_ string: String, method: HTTPMethod = .get, headers: HeaderFields? = nil, body: Data? = nil) {
        self.init(
            URL(string: string) ?? URL(fileURLWithPath: "/invalid-test-url"), method: method, headers: headers,
            body: body)
    }
}

/// The users of the test server.
struct User: Decodable, Parsable, Equatable {
    let id: Int
    let name: String
    let createdAt: Date
}

/// The error body of the test server: `{"error": true, "reason": "…"}`.
struct APIError: Error, Decodable, Equatable {
    let error: Bool
    let reason: String
}

/// What the test server's `/echo` route saw.
struct Echo: Decodable, Parsable {
    let method: String
    let path: String
    let query: [String: [String]]
    let headers: [String: String]
    let body: String
}

/// A session of its own for a test, with completions on a queue of its own (tests do not run the main queue).
func makeSession(
    configuration: URLSessionConfiguration = .ephemeral,
    callbackQueue: OperationQueue = OperationQueue()
) -> Session {
    Session(transport: URLSessionTransport(configuration: configuration), callbackQueue: callbackQueue)
}

/// A response to `GET http://example.test/x` for tests of parsing.
func response(
    status: Int = 200,
    headers: HeaderFields = [:],
    body: String? = nil,
    method: HTTPMethod = .get
) -> Response {
    Response(
        status: status,
        headers: headers,
        data: body.map { Data($0.utf8) },
        originalRequest: TestRequest("http://example.test/x", method: method)
    )
}

/// The `FetchError` in a result, or a test failure naming what came instead.
func fetchError<T>(_ result: Result<T, any Error>?) throws -> FetchError {
    switch result {
    case .failure(let error as FetchError):
        return error
    case .failure(let error):
        throw TestServerError("expected a FetchError, got \(type(of: error)): \(error)")
    case .success(let value):
        throw TestServerError("expected a FetchError, got success: \(value)")
    case nil:
        throw TestServerError("expected a FetchError, got no result at all")
    }
}

extension Optional where Wrapped: Error {
    /// What the error is when there is one and it is a ``FetchError``: what tests match on.
    var fetchKind: FetchError.Kind? { self?.fetchKind }
}

extension Result {
    /// What the failure is when there is one and it is a ``FetchError``: what tests match on.
    var failureKind: FetchError.Kind? {
        guard case .failure(let error) = self else {
            return nil
        }
        return error.fetchKind
    }
}

extension Optional {
    /// What the failure of an optional result is when there is one and it is a ``FetchError``.
    func failureKind<Success, Failure>() -> FetchError.Kind? where Wrapped == Result<Success, Failure> {
        self?.failureKind
    }
}

extension Duration {
    /// This duration in seconds, for the waits of `Captured` and `SpyPerformer`, which take a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
