import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of a Server-Sent Events stream, across reconnections: what
/// ``ResponseStreaming/events(_:errorParser:reconnectPolicy:scheduler:)`` returns.
///
/// Nothing is sent until the sequence is iterated; each iteration opens its own connection. Cancelling the iterating
/// task, or leaving the loop, closes the connection and stops reconnecting.
///
/// A line, or the data of one event, longer than 1 MiB ends the sequence, after
/// the events before it, with ``FetchError/lineTooLong(limit:request:)``; it does not reconnect.
///
/// Over a performer's pipeline, every connection of one iteration is a call with the same observers: an
/// ``Middleware/observe(_:)`` hears each connection's events and, before each wait, ``FetchEvent/Name/reconnecting``
/// with the ``FetchEvent/attempt`` about to be made (the first connection is 1), the ``FetchEvent/delay``, the
/// ``FetchEvent/error`` that ended the last connection (`nil` for a clean end) and the ``FetchEvent/lastEventID``
/// the next connection sends.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    /// The element: one dispatched event.
    public typealias Element = ServerSentEvent

    private let request: any Request
    private let errorParser: (any ErrorParsing)?
    private let reconnectPolicy: ReconnectPolicy
    private let scheduler: any Scheduling
    private let streamer: any ResponseStreaming

    init(
        request: any Request,
        errorParser: (any ErrorParsing)?,
        reconnectPolicy: ReconnectPolicy,
        scheduler: any Scheduling,
        streamer: any ResponseStreaming
    ) {
        self.request = request
        self.errorParser = errorParser
        self.reconnectPolicy = reconnectPolicy
        self.scheduler = scheduler
        self.streamer = streamer
    }

    /// Creates the iterator, which opens the first connection on its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Reads the next event, connecting and reconnecting as needed.
    public struct Iterator: AsyncIteratorProtocol {
        private let stream: ServerSentEventStream
        private var parser = ServerSentEventParser()
        private var connection: ResponseStream.Iterator?
        private var pending: [ServerSentEvent] = []
        private var pendingIndex = 0
        /// Failed attempts to connect in a row.
        private var failures = 0
        /// Connections in a row that ended before delivering an event: they lengthen the wait as failures do.
        private var eventlessConnections = 0
        /// Whether the current connection has delivered an event.
        private var connectionHasEvents = false
        /// The error that ends the sequence once the events read before it have been handed on.
        private var failure: (any Error)?
        /// Whether the next connection is a reconnection, which waits first.
        private var isReconnecting = false
        private var lastError: (any Error)?
        private var isFinished = false
        /// The connections tried so far, the first included.
        private var connectionAttempts = 0
        /// Who hears the events of every connection: the first call's observers, handed to each later call.
        private let observers = EventObservers()

        init(stream: ServerSentEventStream) {
            self.stream = stream
        }

        /// The next event, or `nil` once the server answered `204 No Content` (or the connection ended and the
        /// policy allows no reconnection).
        ///
        /// - Throws: The error of a status outside 2xx, ``FetchError/notEventStream(_:)``,
        ///   ``FetchError/attemptsExhausted(attempts:lastError:request:)``, ``FetchError/lineTooLong(limit:request:)``,
        ///   or ``FetchError/cancelled(request:)`` when the task is cancelled.
        public mutating func next() async throws -> ServerSentEvent? {
            do {
                return try await nextEvent()
            } catch {
                isFinished = true
                connection = nil
                throw error
            }
        }

        private mutating func nextEvent() async throws -> ServerSentEvent? {
            while true {
                if pendingIndex < pending.count {
                    defer { pendingIndex += 1 }
                    return pending[pendingIndex]
                }
                pending = []
                pendingIndex = 0
                if let failure {
                    self.failure = nil
                    throw failure
                }
                guard !isFinished else {
                    return nil
                }
                guard var current = connection else {
                    try await connect()
                    continue
                }
                do {
                    if let chunk = try await current.next() {
                        connection = current
                        do {
                            try parser.parse(chunk, into: &pending)
                        } catch {
                            // Dropping the connection's iterator cancels its request.
                            connection = nil
                            failure = error.naming(stream.request)
                        }
                        if !pending.isEmpty {
                            connectionHasEvents = true
                            eventlessConnections = 0
                        }
                    } else {
                        endConnection(error: nil)
                    }
                } catch let error as FetchError where error.code == .cancelled {
                    throw FetchError.cancelled()
                } catch {
                    if Task.isCancelled {
                        throw FetchError.cancelled()
                    }
                    endConnection(error: error)
                }
            }
        }

        /// The connection ended (cleanly, or with a transport error): an unterminated event is discarded, and the
        /// next `next()` reconnects.
        private mutating func endConnection(error: (any Error)?) {
            connection = nil
            if !connectionHasEvents {
                // Capped, as the wait stops growing long before.
                eventlessConnections = Swift.min(eventlessConnections + 1, 1024)
            }
            parser.finishStream()
            isReconnecting = true
            lastError = error
        }

        /// Opens a connection, after the reconnection wait when it is not the first; sets `connection`, or
        /// `isFinished` on `204`.
        private mutating func connect() async throws {
            let policy = stream.reconnectPolicy
            if isReconnecting {
                if let maximum = policy.maximumFailuresInARow, failures >= maximum {
                    guard let lastError else {
                        isFinished = true
                        return
                    }
                    throw failures > 0
                        ? FetchError.attemptsExhausted(attempts: failures, lastError: lastError) : lastError
                }
                let delay = policy.delay(
                    reconnectionTime: parser.reconnectionTime, failures: failures + eventlessConnections,
                    random: Double.random(in: 0...1))
                if !observers.isEmpty {
                    observers.report(
                        .reconnecting(
                            stream.request, attempt: connectionAttempts + 1, delay: delay, error: lastError,
                            lastEventID: parser.lastEventID))
                }
                try await stream.scheduler.wait(delay)
            }
            isReconnecting = true
            connectionAttempts += 1
            let opened: ResponseStream
            do {
                let (streamer, request, errorParser) = (stream.streamer, try eventRequest(), stream.errorParser)
                opened = try await ObserversHandOff.$current.withValue(ObserversHandOff(observers)) {
                    try await streamer.stream(request, errorParser: errorParser)
                }
            } catch let error as FetchError {
                switch error.code {
                case .transport, .timedOut:
                    failures += 1
                    lastError = error
                    return
                default:
                    throw error
                }
            }
            if opened.response.status == 204 {
                opened.cancel()
                isFinished = true
                return
            }
            guard Self.isEventStream(opened.response) else {
                opened.cancel()
                throw FetchError.notEventStream(opened.response)
            }
            failures = 0
            lastError = nil
            connectionHasEvents = false
            connection = opened.makeAsyncIterator()
        }

        /// The request with the headers of an event source: `Accept`, `Cache-Control` and `Last-Event-ID`.
        private func eventRequest() throws -> AdaptedRequest {
            let original = stream.request
            // Built once here so that a request that cannot be sent fails the stream, not each reconnection.
            try HeaderValidation.validate(original.makeURLRequest(), for: original)
            var request = AdaptedRequest(original)
            request.headers["Accept"] = "text/event-stream"
            request.headers["Cache-Control"] = "no-cache"
            if let lastEventID = parser.lastEventID {
                try HeaderValidation.validate(
                    name: "Last-Event-ID", value: lastEventID, in: "\(original.method) \(original.url.absoluteString)")
                request.headers["Last-Event-ID"] = lastEventID
            }
            return request
        }

        private static func isEventStream(_ response: Response) -> Bool {
            guard let contentType = response.headers["Content-Type"] else {
                return false
            }
            let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
            return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
        }
    }
}
