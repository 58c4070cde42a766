import Fetch
import Foundation

/// A live notification of `GET api/notifications`: one Server-Sent Event, whose `event:` field names its kind and
/// whose `data:` is a JSON object with a title and a body.
struct LiveNotification: Equatable, Sendable {
    /// The event's id, which a reconnection sends back as `Last-Event-ID`.
    let id: String?
    /// What it is about: `purchase`, `announcement`, `reminder`.
    let kind: String
    let title: String
    let body: String

    private struct Payload: Decodable {
        let title: String
        let body: String
    }

    /// Reads a notification from its event.
    ///
    /// - Throws: `FetchError.eventDecoding` when the event's data is not a notification's JSON.
    init(_ event: ServerSentEvent) throws {
        let payload = try event.decode(Payload.self)
        self.id = event.id
        self.kind = event.event
        self.title = payload.title
        self.body = payload.body
    }
}
