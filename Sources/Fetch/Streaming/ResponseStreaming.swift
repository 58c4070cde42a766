import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An object that sends requests whose response bodies are read as they arrive: ``Session``, and FetchTesting's
/// `MockStream`. Server-Sent Events (``events(_:errorParser:reconnectPolicy:scheduler:)``) come with it.
public protocol ResponseStreaming: Sendable {
    /// Sends a request and returns once the response head has arrived, with its body to read as it arrives.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The stream: its ``ResponseStream/response`` head, and its body as chunks.
    /// - Throws: For a status outside 2xx, before any chunk, what `perform` would throw: the error parser's error
    ///   or ``FetchError/unacceptableStatus(_:)`` with up to 64 KiB of the body; a ``FetchError`` for a transport
    ///   failure; ``FetchError/cancelled(request:)`` when the awaiting task is cancelled.
    func stream(_ request: any Request, errorParser: (any ErrorParsing)?) async throws -> ResponseStream
}

extension ResponseStreaming {
    /// Subscribes to a Server-Sent Events stream, reconnecting as the WHATWG HTML standard says.
    ///
    /// ```swift
    /// for try await event in session.events(GetNotifications()) {
    ///     let notification = try event.decode(Notification.self)
    ///     print(notification)
    /// }
    /// ```
    ///
    /// Each connection sends `Accept: text/event-stream`, `Cache-Control: no-cache` and, once the stream has set an
    /// event ID, `Last-Event-ID`. When a connection ends or fails, the sequence reconnects after the stream's
    /// reconnection time (see ``ReconnectPolicy``). It ends without error when the server answers `204 No Content`.
    ///
    /// - Parameters:
    ///   - request: The request that opens the stream.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    ///   - reconnectPolicy: How to reconnect. The default is `ReconnectPolicy()`.
    ///   - scheduler: The clock of the waits before reconnecting. The default is real time.
    /// - Returns: The events, in order, across reconnections. Iterating throws, ending the sequence, the error of a
    ///   status outside 2xx, ``FetchError/notEventStream(_:)`` for another `Content-Type`,
    ///   ``FetchError/attemptsExhausted(attempts:lastError:request:)`` when reconnecting keeps failing, or
    ///   ``FetchError/lineTooLong(limit:request:)`` for a line or an event past 1 MiB.
    public func events(
        _ request: any Request,
        errorParser: (any ErrorParsing)? = nil,
        reconnectPolicy: ReconnectPolicy = ReconnectPolicy(),
        scheduler: any Scheduling = DispatchScheduler()
    ) -> ServerSentEventStream {
        ServerSentEventStream(
            request: request,
            errorParser: errorParser,
            reconnectPolicy: reconnectPolicy,
            scheduler: scheduler,
            streamer: self
        )
    }
}
