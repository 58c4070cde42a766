import Fetch
import Foundation

extension API {
    /// The live notifications of `GET api/notifications`, a Server-Sent Events stream, each handed on as it arrives.
    ///
    /// The stream goes through the same middlewares as every other call: it sends the token of the latest login
    /// (and logs in again on a 401 before the first event), and retries a failure to connect. When the server ends
    /// the stream, `events` reconnects after the server's `retry:` time with `Last-Event-ID`; the demo server then
    /// sends the notifications after that one, or answers `204 No Content` when there are none left, which ends
    /// the sequence.
    ///
    /// ```swift
    /// for try await notification in api.notifications() {
    ///     print(notification.title)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - reconnectPolicy: How to reconnect. The default is `ReconnectPolicy()`.
    ///   - scheduler: The clock of the waits before reconnecting; tests pass FetchTesting's `TestScheduler`.
    /// - Returns: The notifications, in order, across reconnections. Iterating throws ``APIError`` when the server
    ///   refuses the stream, `FetchError.eventDecoding` for an event that is not a notification, or another
    ///   `FetchError`.
    func notifications(
        reconnectPolicy: ReconnectPolicy = ReconnectPolicy(),
        scheduler: any Scheduling = DispatchScheduler()
    ) -> AsyncThrowingMapSequence<ServerSentEventStream, LiveNotification> {
        authenticated
            .events(
                request("notifications"), errorParser: errorParser, reconnectPolicy: reconnectPolicy,
                scheduler: scheduler
            )
            .map { try LiveNotification($0) }
    }
}
