import Fetch
import Foundation

extension API {
    /// Opens the live desk channel, a WebSocket at `live` under `baseURL`, through the same middlewares as every
    /// other call: its handshake sends the token of the latest login, and logs in again when the server answers 401.
    ///
    /// The channel sends ``DeskUpdate``s of kind `event`, echoes each message the client posts as one of kind
    /// `echo`, and closes with 1000.
    ///
    /// ```swift
    /// let desk = try await api.liveDesk(at: liveDeskURL)
    /// try await desk.send(json: DeskUpdate(kind: "post", text: "In the office today"))
    /// for try await message in desk {
    ///     print(try message.decode(DeskUpdate.self).text)
    /// }
    /// ```
    ///
    /// - Parameter baseURL: The base URL of the channel's server, such as `ws://127.0.0.1:8081/`.
    /// - Returns: The open channel.
    /// - Throws: ``APIError`` when the server refuses the handshake, or a `FetchError`.
    func liveDesk(at baseURL: URL) async throws -> WebSocket {
        try await authenticated.webSocket(APIRequest(baseURL).path("live"), errorParser: errorParser)
    }
}
