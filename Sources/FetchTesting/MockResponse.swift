import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A canned HTTP answer for ``MockPerformer`` and ``SpyPerformer``: status, headers and body.
public struct MockResponse: Sendable {
    /// The HTTP status code.
    public var status: Int

    /// The header fields.
    public var headers: HeaderFields

    /// The body, or `nil` for none.
    public var data: Data? {
        didSet { chunks = nil }
    }

    /// The pieces a stream of this answer delivers, one by one; `nil` delivers ``data`` as one piece.
    package private(set) var chunks: [Data]?

    /// The scripted server a WebSocket's opening handshake is switched to; `nil` for a plain answer.
    package private(set) var webSocket: MockWebSocket?

    /// Creates an answer.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code. The default is 200.
    ///   - headers: The header fields. The default is none.
    ///   - data: The body. The default is none.
    public init(status: Int = 200, headers: HeaderFields = [:], data: Data? = nil) {
        self.status = status
        self.headers = headers
        self.data = data
        self.chunks = nil
        self.webSocket = nil
    }

    /// The answer to a WebSocket's opening handshake: `101 Switching Protocols`, switching the connection to
    /// `server`'s script. `performer.webSocket(…)` opens it; any other call gets the `101` as it is.
    ///
    /// - Parameter server: The scripted server.
    /// - Returns: The answer.
    public static func webSocket(_ server: MockWebSocket) -> MockResponse {
        var response = MockResponse(status: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"])
        response.webSocket = server
        return response
    }

    /// An answer whose body a stream (`stream`, `events`) receives as these separate chunks, in order; `perform`
    /// gets them joined. To script Server-Sent Events, reconnections and failures midway, use ``MockStream``.
    ///
    /// - Parameters:
    ///   - chunks: The pieces of the body.
    ///   - status: The HTTP status code. The default is 200.
    ///   - headers: The header fields. The default is none.
    /// - Returns: The answer.
    public static func chunks(_ chunks: [Data], status: Int = 200, headers: HeaderFields = [:]) -> MockResponse {
        var response = MockResponse(status: status, headers: headers, data: chunks.reduce(into: Data()) { $0 += $1 })
        response.chunks = chunks
        return response
    }

    /// An answer whose body is JSON text, with `Content-Type: application/json`.
    ///
    /// - Parameters:
    ///   - json: The body, for example `#"{"id": 1}"#`.
    ///   - status: The HTTP status code. The default is 200.
    ///   - headers: More header fields. The default is none.
    /// - Returns: The answer.
    public static func json(_ json: String, status: Int = 200, headers: HeaderFields = [:]) -> MockResponse {
        let headers =
            headers.contains("Content-Type")
            ? headers : HeaderFields(Array(headers) + [("Content-Type", "application/json")])
        return MockResponse(status: status, headers: headers, data: Data(json.utf8))
    }

    /// An answer whose body is plain UTF-8 text, with `Content-Type: text/plain; charset=utf-8`.
    ///
    /// - Parameters:
    ///   - text: The body.
    ///   - status: The HTTP status code. The default is 200.
    /// - Returns: The answer.
    public static func text(_ text: String, status: Int = 200) -> MockResponse {
        MockResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], data: Data(text.utf8))
    }
}

/// Answers a request as a transport does, from a canned answer: the same path as `Session`'s, from building the
/// `URLRequest` to turning a `URLError` into the `FetchError` that `Session` would deliver.
enum MockExchange {
    /// The response `request` gets when `answer` supplies the transport's answer: a response, or a thrown
    /// transport error. `answer` is not asked when the request cannot be built.
    static func response(
        for request: any Request,
        answer: (URLRequest) throws -> MockResponse
    ) -> Result<Response, any Error> {
        Exchange.makeURLRequest(for: request, defaultTimeout: nil).flatMap { urlRequest in
            let mock: MockResponse
            do {
                mock = try answer(urlRequest)
            } catch {
                return Exchange.response(for: request, data: nil, urlResponse: nil, error: error)
            }
            let url = urlRequest.url ?? request.url
            let httpResponse = HTTPURLResponse(
                url: url,
                statusCode: mock.status,
                httpVersion: "HTTP/1.1",
                headerFields: mock.headers.dictionary
            )
            // Foundation's response checks the head as a transport's would; the answer keeps the mock's fields
            // as they are, repeated ones apart, as libcurl's would.
            return Exchange.response(for: request, data: mock.data, urlResponse: httpResponse, error: nil).map { _ in
                Response(
                    status: mock.status, headers: mock.headers, data: mock.data, originalRequest: request, url: url)
            }
        }
    }
}
