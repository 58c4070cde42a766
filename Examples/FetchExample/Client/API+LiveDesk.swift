import Fetch
import Foundation

extension API {
    /// Opens the live desk channel, a WebSocket at `live` under `baseURL`, through the same middlewares as every
    /// other call: its handshake sends the token of the latest login, and logs in again when the server answers 401.
    ///
    /// The channel sends ``DeskUpdate``s of kind `event`, echoes each message the client posts as one of kind
    /// `echo`, and closes with 1000. When the connection drops, the desk reopens it as ``liveDeskReconnectPolicy``
    /// says, reporting each drop, wait and reopening to `onEvent`, and runs `onReconnect` before the new
    /// connection's first message.
    ///
    /// ```swift
    /// let desk = try await api.liveDesk(at: liveDeskURL)
    /// try await desk.send(json: DeskUpdate(kind: "post", text: "In the office today"))
    /// for try await message in desk {
    ///     print(try message.decode(DeskUpdate.self).text)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: The base URL of the channel's server, such as `ws://127.0.0.1:8081/`.
    ///   - onEvent: Called with each event of the channel's calls and connections. The default ignores them.
    ///   - onReconnect: Run after each reopening, to post again what the old connection lost. The default is none.
    /// - Returns: The open channel.
    /// - Throws: ``APIError`` when the server refuses the handshake, or a `FetchError`.
    func liveDesk(
        at baseURL: URL,
        onEvent: @escaping @Sendable (FetchEvent) -> Void = { _ in },
        onReconnect: (@Sendable (WebSocket) async throws -> Void)? = nil
    ) async throws -> WebSocket {
        var configuration = WebSocket.Configuration()
        configuration.reconnectPolicy = Self.liveDeskReconnectPolicy
        configuration.onReconnect = onReconnect
        return try await authenticated.with(.observe(onEvent)).webSocket(
            APIRequest(baseURL).path("live"), errorParser: errorParser, configuration: configuration)
    }

    /// How the live desk reopens a dropped connection: after 0.2 s, doubled per failure, 3 failures at most.
    static let liveDeskReconnectPolicy = ReconnectPolicy(
        backoff: Backoff(initialDelay: 0.2, maximumDelay: 2, jitter: 0), maximumFailuresInARow: 3)
}
