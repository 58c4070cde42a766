import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A double that answers each call with the next scripted connection: a status and headers, then chunks, then the
/// end of the connection or a failure. Nothing touches the network, and nothing waits: every chunk is ready at once.
///
/// It is a `RequestPerforming` object whose transport streams, so middlewares apply to its streams as to a
/// `Session`'s: `mock.with(.authenticate(with: tokens)).events(request)` refreshes on a scripted 401. A `perform` call
/// takes a connection too, and gets its whole body.
///
/// An SSE client is tested with no network and no real waiting by scripting a disconnect and a reconnection, and
/// giving `events` a `TestScheduler`:
///
/// ```swift
/// let mock = MockStream(connections: [
///     .events([ServerSentEvent(id: "1", data: "one")], retry: 500),  // then the connection drops
///     .events([ServerSentEvent(id: "2", data: "two")]),
///     .noContent,  // 204: the client stops
/// ])
/// let scheduler = TestScheduler()
/// var received: [String] = []
/// for try await event in mock.events(request, scheduler: scheduler) {
///     received.append(event.data)
/// }
/// #expect(received == ["one", "two"])
/// #expect(try mock.requests[1].makeURLRequest().value(forHTTPHeaderField: "Last-Event-ID") == "1")
/// #expect(scheduler.delays == [0.5, 0.5])
/// ```
///
/// A status outside 2xx goes through the same error path as `Session`: the error parser's error, or
/// `FetchError.unacceptableStatus` with the scripted body. A request made after the script has run out fails with an
/// error that names it and the script's length.
public final class MockStream: RequestPerforming {
    /// One scripted connection.
    public struct Connection: Sendable {
        /// One thing that happens on the connection, in order.
        public enum Step: Sendable {
            /// A chunk of the body arrives.
            case chunk(Data)
            /// The connection fails with this error (a transport error such as `URLError(.networkConnectionLost)`
            /// arrives as the `FetchError` that `Session` would deliver).
            case fail(any Error)
        }

        /// The status of the response head.
        package var status: Int

        /// The header fields of the response head.
        package var headers: HeaderFields

        /// What happens after the head; the connection ends after the last step.
        package var steps: [Step]

        /// The transport error that keeps the connection from opening, if any: `stream` throws it at once.
        package var openingError: (any Error)?

        /// Creates a connection.
        ///
        /// - Parameters:
        ///   - status: The status. The default is 200.
        ///   - headers: The header fields. The default is none.
        ///   - steps: What happens after the head. The default is nothing: the connection ends at once.
        public init(status: Int = 200, headers: HeaderFields = [:], steps: [Step] = []) {
            self.status = status
            self.headers = headers
            self.steps = steps
        }

        /// A connection with a `text/event-stream` body made of `events`, then the end of the connection (or
        /// `failure`).
        ///
        /// - Parameters:
        ///   - events: The events, each written as its `id:`, `event:`, `retry:` and `data:` fields and a blank line.
        ///   - retry: A `retry:` field written first, in milliseconds, or `nil` for none.
        ///   - failure: The error that ends the connection after the events, or `nil` for a clean end.
        /// - Returns: The connection.
        public static func events(
            _ events: [ServerSentEvent],
            retry: Int? = nil,
            then failure: (any Error)? = nil
        ) -> Connection {
            var text = retry.map { "retry: \($0)\n\n" } ?? ""
            for event in events {
                text += Self.wireFormat(of: event)
            }
            var steps: [Step] = [.chunk(Data(text.utf8))]
            if let failure {
                steps.append(.fail(failure))
            }
            return Connection(headers: ["Content-Type": "text/event-stream"], steps: steps)
        }

        /// A `204 No Content` answer, which ends an SSE client's reconnecting.
        public static let noContent = Connection(status: 204)

        /// A connection that cannot be opened: `stream` throws `error` as a transport failure.
        ///
        /// - Parameter error: The failure, such as `URLError(.cannotConnectToHost)`.
        /// - Returns: The connection.
        public static func unreachable(_ error: any Error) -> Connection {
            var connection = Connection()
            connection.openingError = error
            return connection
        }

        /// An answer with a status outside 2xx and this body, which `stream` throws as `perform` would.
        ///
        /// - Parameters:
        ///   - status: The status.
        ///   - body: The body.
        ///   - contentType: The `Content-Type`. The default is `application/json`.
        /// - Returns: The connection.
        package static func status(_ status: Int, body: String = "", contentType: String = "application/json")
            -> Connection
        {
            Connection(status: status, headers: ["Content-Type": contentType], steps: [.chunk(Data(body.utf8))])
        }

        /// An event as a server writes it.
        static func wireFormat(of event: ServerSentEvent) -> String {
            var text = ""
            if let id = event.id {
                text += "id: \(id)\n"
            }
            if event.event != "message" {
                text += "event: \(event.event)\n"
            }
            if let retry = event.retry {
                text += "retry: \(retry)\n"
            }
            for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) {
                text += "data: \(line)\n"
            }
            return text + "\n"
        }
    }

    /// The failure of a `stream` call made after every scripted connection was used.
    package struct ScriptExhausted: Error, CustomStringConvertible {
        /// The request that found no connection left.
        package let request: any Request

        /// How many connections the script had.
        package let connections: Int

        /// `MockStream has no connection left for GET http://host/events: its 3 were all used`.
        package var description: String {
            "MockStream has no connection left for \(request.method) \(request.url.absoluteString):"
                + " its \(connections) were all used"
        }
    }

    /// What a mock has done so far; shared with its transport.
    fileprivate struct State {
        var next = 0
        var requests: [any Request] = []
        var cancelled = 0
    }

    private let state: Locked<State>

    /// The mock's pipeline: no middlewares, and a transport that answers from the script.
    public let pipeline: Pipeline

    /// Creates a double that answers successive calls with successive connections.
    ///
    /// - Parameter connections: The script.
    public init(connections: [Connection]) {
        let state = Locked(State())
        self.state = state
        self.pipeline = Pipeline(ScriptTransport(connections: connections, state: state))
    }

    /// Every request the mock was sent, in order, as it reached the transport (with the headers `events` and the
    /// middlewares add).
    public var requests: [any Request] {
        state.withLock { $0.requests }
    }

    /// How many streams their consumer stopped (cancelled, or left the loop) before they ended.
    package var cancelledStreams: Int {
        state.withLock { $0.cancelled }
    }

    /// Answers with the next scripted connection, its whole body parsed as `T`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called before `perform` returns, with the parsed value or the error.
    /// - Returns: A handle that cancels nothing: the call has finished.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }

    /// The transport of a ``MockStream``: each request takes the next connection.
    private struct ScriptTransport: Transport {
        let connections: [Connection]
        let state: Locked<State>

        /// The next connection for `request`, or why there is none.
        private func connection(for request: any Request) -> Result<(Connection, URL), any Error> {
            let urlRequest: URLRequest
            do {
                urlRequest = try request.makeURLRequest()
            } catch {
                return .failure(error)
            }
            let index = state.withLock { state -> Int in
                state.requests.append(request)
                defer { state.next += 1 }
                return state.next
            }
            guard index < connections.count else {
                return .failure(ScriptExhausted(request: request, connections: connections.count))
            }
            let connection = connections[index]
            if let error = connection.openingError {
                return .failure(MockStream.transportError(error))
            }
            return .success((connection, urlRequest.url ?? request.url))
        }

        func send(
            _ request: any Request,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> any CancellableCall {
            completion(
                connection(for: request).flatMap { connection, url in
                    var body = Data()
                    for step in connection.steps {
                        switch step {
                        case .chunk(let data):
                            body.append(data)
                        case .fail(let error):
                            return .failure(MockStream.transportError(error))
                        }
                    }
                    return .success(
                        Response(
                            status: connection.status, headers: connection.headers, data: body,
                            originalRequest: request, url: url))
                })
            return CompletedCall()
        }

        func stream(
            _ request: any Request,
            maximumBufferSize: Int,
            completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
        ) -> any CancellableCall {
            completion(
                connection(for: request).map { connection, url in
                    let head = Response(
                        status: connection.status, headers: connection.headers, originalRequest: request, url: url)
                    let cursor = Cursor(steps: connection.steps) { [state] in
                        state.withLock { $0.cancelled += 1 }
                    }
                    return ResponseStream(response: head, chunks: AsyncThrowingStream { try cursor.next() })
                })
            return CompletedCall()
        }
    }

    /// Hands on a connection's steps one `next()` at a time, and notices a consumer that stops before the end.
    private final class Cursor: Sendable {
        private let steps: [Connection.Step]
        private let position = Locked((next: 0, isFinished: false))
        private let onStoppedEarly: @Sendable () -> Void

        init(steps: [Connection.Step], onStoppedEarly: @escaping @Sendable () -> Void) {
            self.steps = steps
            self.onStoppedEarly = onStoppedEarly
        }

        deinit {
            if !position.withLock({ $0.isFinished }) {
                onStoppedEarly()
            }
        }

        func next() throws -> Data? {
            if Task.isCancelled {
                return nil
            }
            let step = position.withLock { position -> Connection.Step? in
                guard position.next < steps.count else {
                    position.isFinished = true
                    return nil
                }
                defer { position.next += 1 }
                return steps[position.next]
            }
            switch step {
            case .chunk(let data):
                return data
            case .fail(let error):
                position.withLock { $0.isFinished = true }
                throw MockStream.transportError(error)
            case nil:
                return nil
            }
        }
    }

    fileprivate static func transportError(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError else {
            return error
        }
        switch urlError.code {
        case .timedOut: return FetchError.timedOut()
        case .cancelled: return FetchError.cancelled()
        default: return FetchError.transport(urlError)
        }
    }
}
