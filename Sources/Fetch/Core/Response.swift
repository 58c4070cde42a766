import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP response as a ``RequestPerforming`` object received it: status, headers and body, together with the
/// request that was sent.
///
/// Tests build one directly to exercise a ``Parsable`` type without a network:
///
/// ```swift
/// let response = Response(status: 200, data: Data(#"{"id":1}"#.utf8), originalRequest: GetUser(id: 1))
/// let user = try User.parse(response: response, errorParser: nil).get()
/// ```
///
/// A middleware changes a response by editing a copy of the one `next` answered (`var changed = response`): the copy
/// keeps the body still arriving of a stream and the connection of a WebSocket, which a response made with
/// ``init(status:headers:data:originalRequest:url:)`` has not. A stream or WebSocket call answered with a made one
/// after the transport delivered its own fails with ``FetchError/invalidRequest(_:)``, and what it dropped is closed.
public struct Response: Sendable {
    /// The fields, in one box: a response is copied at every step of the pipeline and matched in every `Result`, so a
    /// copy costs one retain, and the value is loadable (a struct holding `any Request` directly is copied out of an
    /// enum before each `case let`).
    private var storage: Storage

    /// The HTTP status code, for example `200`.
    public var status: Int {
        get { storage.status }
        set { own().status = newValue }
    }

    /// The body, or `nil` when there was none.
    public var data: Data? {
        get { storage.data }
        set { own().data = newValue }
    }

    /// The request this response answers.
    public var originalRequest: any Request { storage.originalRequest }

    /// The URL that answered: the request's URL, or the last one after redirects. `nil` when unknown.
    public var url: URL? { storage.url }

    /// The header fields, in the order they arrived: `response.headers["content-type"]`.
    public var headers: HeaderFields {
        get { storage.headers }
        set { own().headers = newValue }
    }

    /// What the attempt that brought this response measured on the network: its phases, bytes, HTTP version,
    /// connection and redirects. `nil` for a response no transport fetched: one a cache kept, a middleware made or a
    /// test double answered without metrics. Which fields a transport fills: ``AttemptMetrics``.
    public var metrics: AttemptMetrics? {
        get { measured?.metrics }
        set { measured = newValue.map(Measured.init) }
    }

    /// The metrics, boxed apart: events share them with the response they came from.
    package var measured: Measured? {
        get { storage.measured }
        set { own().measured = newValue }
    }

    /// Values already parsed from this response, by type: a cache keeps them with a stored response so that a
    /// fresh hit is not parsed again.
    package var parsedValues: ParsedValues? { storage.parsedValues }

    /// The body still arriving, when this is the head of a streamed response going through the middlewares.
    package var streamedBody: StreamedBody? { storage.streamedBody }

    /// The open connection, when this is the `101 Switching Protocols` head of a WebSocket going through the
    /// middlewares.
    package var webSocketChannel: (any WebSocketChannel)? { storage.webSocketChannel }

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - headers: The header fields. The default is none.
    ///   - data: The body. The default is none.
    ///   - originalRequest: The request this response answers.
    ///   - url: The URL that answered. The default is `nil`.
    public init(
        status: Int,
        headers: HeaderFields = [:],
        data: Data? = nil,
        originalRequest: any Request,
        url: URL? = nil
    ) {
        self.init(
            status: status, fields: headers, data: data, originalRequest: originalRequest, url: url,
            parsedValues: nil, streamedBody: nil)
    }

    /// A response whose header fields are read from `httpResponse` only when someone asks for them: most responses
    /// are decoded without a look at their headers, and copying them costs more than the rest of Fetch's own work.
    package init(httpResponse: HTTPURLResponse, data: Data?, originalRequest: any Request) {
        self.init(
            status: httpResponse.statusCode,
            fields: HeaderFields(httpResponse),
            data: data,
            originalRequest: originalRequest,
            url: httpResponse.url,
            parsedValues: nil,
            streamedBody: nil
        )
    }

    /// The head of `stream`, carrying its body through the middlewares to ``RequestPerforming/stream(_:errorParser:maximumBufferSize:)``.
    package init(streaming stream: ResponseStream) {
        let head = stream.response
        self.init(
            status: head.status, fields: head.headers, data: nil, originalRequest: head.originalRequest, url: head.url,
            parsedValues: nil, streamedBody: StreamedBody(stream), measured: head.measured)
    }

    /// The `101 Switching Protocols` head of a WebSocket, carrying its open connection through the middlewares to
    /// ``RequestPerforming/webSocket(_:errorParser:maximumMessageSize:reconnectPolicy:scheduler:)``.
    package init(
        status: Int, headers: HeaderFields, originalRequest: any Request, url: URL?,
        webSocketChannel channel: any WebSocketChannel
    ) {
        self.init(
            status: status, fields: headers, data: nil, originalRequest: originalRequest, url: url, parsedValues: nil,
            streamedBody: nil, webSocketChannel: channel)
    }

    private init(
        status: Int, fields: HeaderFields, data: Data?, originalRequest: any Request, url: URL?,
        parsedValues: ParsedValues?, streamedBody: StreamedBody?, webSocketChannel: (any WebSocketChannel)? = nil,
        measured: Measured? = nil
    ) {
        storage = Storage(
            status: status, data: data, originalRequest: originalRequest, url: url, headers: fields,
            measured: measured, parsedValues: parsedValues, streamedBody: streamedBody,
            webSocketChannel: webSocketChannel)
    }

    /// The storage, this response's own before a write: copied first when another response shares it.
    private mutating func own() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(copying: storage)
        }
        return storage
    }

    /// The fields of a response.
    ///
    /// `@unchecked Sendable`: the `var`s are written only through a response that holds the only reference, after
    /// ``own()`` copied a shared box, so a box other threads can see is never written.
    private final class Storage: @unchecked Sendable {
        var status: Int
        var data: Data?
        let originalRequest: any Request
        let url: URL?
        var headers: HeaderFields
        var measured: Measured?
        let parsedValues: ParsedValues?
        let streamedBody: StreamedBody?
        let webSocketChannel: (any WebSocketChannel)?

        init(
            status: Int, data: Data?, originalRequest: any Request, url: URL?, headers: HeaderFields,
            measured: Measured?, parsedValues: ParsedValues?, streamedBody: StreamedBody?,
            webSocketChannel: (any WebSocketChannel)?
        ) {
            self.status = status
            self.data = data
            self.originalRequest = originalRequest
            self.url = url
            self.headers = headers
            self.measured = measured
            self.parsedValues = parsedValues
            self.streamedBody = streamedBody
            self.webSocketChannel = webSocketChannel
        }

        convenience init(copying other: Storage) {
            self.init(
                status: other.status, data: other.data, originalRequest: other.originalRequest, url: other.url,
                headers: other.headers, measured: other.measured, parsedValues: other.parsedValues,
                streamedBody: other.streamedBody, webSocketChannel: other.webSocketChannel)
        }
    }

    /// Whether ``status`` is in the 2xx success range.
    package var isSuccess: Bool { (200..<300).contains(status) }

    /// The same response, answering `request`: wrapping performers hand their callers responses to the request the
    /// caller made, not to the copies they sent. The header fields are shared, not copied.
    package func answering(_ request: any Request) -> Response {
        Response(
            status: status, fields: headers, data: data, originalRequest: request, url: url, parsedValues: parsedValues,
            streamedBody: streamedBody, webSocketChannel: webSocketChannel, measured: measured)
    }

    /// The same response, keeping the values parsed from it in `values`.
    package func keepingParsedValues(in values: ParsedValues) -> Response {
        Response(
            status: status, fields: headers, data: data, originalRequest: originalRequest, url: url,
            parsedValues: values, streamedBody: streamedBody, webSocketChannel: webSocketChannel, measured: measured)
    }

    /// This response parsed as `T`: the value parsed before for the same type when a cache keeps them (a kept
    /// response has status 200, so the error parser plays no part in a successful parse).
    /// The same response with `data` as its body, no longer streamed: an error body read from a stream.
    package func withBody(_ data: Data?) -> Response {
        Response(
            status: status, fields: headers, data: data, originalRequest: originalRequest, url: url,
            parsedValues: parsedValues, streamedBody: nil, measured: measured)
    }

    package func parsed<T: Parsable>(as type: T.Type, errorParser: (any ErrorParsing)?) -> Result<T, any Error> {
        guard let parsedValues, T.self != Response.self else {
            return T.parse(response: self, errorParser: errorParser)
        }
        if let value = parsedValues.value(of: T.self) {
            return .success(value)
        }
        let result = T.parse(response: self, errorParser: errorParser)
        if case .success(let value) = result {
            parsedValues.keep(value)
        }
        return result
    }
}

/// An attempt's metrics in a box that responses and events share instead of copying.
package final class Measured: Sendable {
    package let metrics: AttemptMetrics

    package init(_ metrics: AttemptMetrics) {
        self.metrics = metrics
    }
}
