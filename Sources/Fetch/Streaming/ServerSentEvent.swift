import Foundation

/// One event of a Server-Sent Events stream (`text/event-stream`), as the WHATWG HTML standard dispatches it.
///
/// ```swift
/// for try await event in session.events(GetNotifications()) {
///     let notification = try event.decode(Notification.self)
///     print(notification)
/// }
/// ```
public struct ServerSentEvent: Sendable, Equatable {
    /// The last event ID when the event was dispatched: set by the `id:` field of this event or of an earlier one of
    /// the stream, `nil` when none was set (or an `id:` field emptied it). Reconnecting sends it as `Last-Event-ID`.
    public var id: String?

    /// The event type, from the `event:` field; `"message"` when the event names none.
    public var event: String

    /// The event's data: its `data:` fields joined with `"\n"`.
    public var data: String

    /// The reconnection time the event's own `retry:` field set, in milliseconds, or `nil` when it had none.
    public var retry: Int?

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - id: The last event ID. The default is `nil`.
    ///   - event: The event type. The default is `"message"`.
    ///   - data: The data.
    ///   - retry: The reconnection time in milliseconds the event set. The default is `nil`.
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// Decodes ``data`` as JSON.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder. The default is the one `Decodable` ``Parsable`` models use.
    /// - Returns: The decoded value.
    /// - Throws: ``FetchError/eventDecoding(_:_:)``, which names the event and quotes its data.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = DefaultDecoding.decoder) throws -> T {
        do {
            return try decoder.decode(T.self, from: Data(data.utf8))
        } catch let error as DecodingError {
            throw FetchError.eventDecoding(error, self)
        }
    }
}
