import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `ResponseStreaming` double that answers each `stream` call with the next scripted connection: a status and
/// headers, then chunks, then the end of the connection or a failure. Nothing touches the network, and nothing
/// waits: every chunk is ready at once.
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
/// `FetchError.unacceptableStatus` with the scripted body. A request made after the script has run out fails with
/// ``ScriptExhausted``.
public final class MockStream: ResponseStreaming {
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
        public var status: Int

        /// The header fields of the response head.
        public var headers: [String: String]

        /// What happens after the head; the connection ends after the last step.
        public var steps: [Step]

        /// The transport error that keeps the connection from opening, if any: `stream` throws it at once.
        public var openingError: (any Error)?

        /// Creates a connection.
        ///
        /// - Parameters:
        ///   - status: The status. The default is 200.
        ///   - headers: The header fields. The default is none.
        ///   - steps: What happens after the head. The default is nothing: the connection ends at once.
        public init(status: Int = 200, headers: [String: String] = [:], steps: [Step] = []) {
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
        public static func status(_ status: Int, body: String = "", contentType: String = "application/json")
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
    public struct ScriptExhausted: Error, CustomStringConvertible {
        /// The request that found no connection left.
        public let request: any Request

        /// How many connections the script had.
        public let connections: Int

        /// `MockStream has no connection left for GET http://host/events: its 3 were all used`.
        public var description: String {
            "MockStream has no connection left for \(request.method) \(request.url.absoluteString):"
                + " its \(connections) were all used"
        }
    }

    private struct State {
        var next = 0
        var requests: [any Request] = []
        var cancelled = 0
    }

    private let connections: [Connection]
    private let state = Locked(State())

    /// Creates a double that answers successive `stream` calls with successive connections.
    ///
    /// - Parameter connections: The script.
    public init(connections: [Connection]) {
        self.connections = connections
    }

    /// Every request `stream` was called with, in order, as sent (with the headers `events` adds).
    public var requests: [any Request] {
        state.withLock { $0.requests }
    }

    /// How many streams their consumer stopped (cancelled, or left the loop) before they ended.
    public var cancelledStreams: Int {
        state.withLock { $0.cancelled }
    }

    /// Answers with the next scripted connection.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    /// - Returns: The stream of the connection's chunks.
    /// - Throws: What `Session` would throw for the scripted answer, or ``ScriptExhausted``.
    public func stream(_ request: any Request, errorParser: (any ErrorParsing)? = nil) async throws -> ResponseStream {
        let urlRequest = try request.makeURLRequest()
        let index = state.withLock { state -> Int in
            state.requests.append(request)
            defer { state.next += 1 }
            return state.next
        }
        guard index < connections.count else {
            throw ScriptExhausted(request: request, connections: connections.count)
        }
        let connection = connections[index]
        if let error = connection.openingError {
            throw Self.transportError(error)
        }
        let head = Response(
            status: connection.status, headers: connection.headers, originalRequest: request, url: urlRequest.url)
        guard head.isSuccess else {
            var body = Data()
            for case .chunk(let data) in connection.steps {
                body.append(data)
            }
            let response = Response(
                status: connection.status, headers: connection.headers, data: body.prefix(64 * 1024),
                originalRequest: request, url: urlRequest.url)
            throw errorParser?.parseError(from: response.data, status: response.status)
                ?? FetchError.unacceptableStatus(response)
        }
        let cursor = Cursor(steps: connection.steps) { [state] in
            state.withLock { $0.cancelled += 1 }
        }
        let chunks = AsyncThrowingStream<Data, any Error> { try cursor.next() }
        return ResponseStream(response: head, chunks: chunks)
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

    private static func transportError(_ error: any Error) -> any Error {
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
