import Fetch
import Foundation

/// A scripted WebSocket server for tests: what it sends, when it closes or drops the connection, and what the
/// client sent it, with no network.
///
/// Answer a handshake with ``MockResponse/webSocket(_:)``; every step happens at once, on the calling thread, so a
/// chat client is tested without waiting. Give the reconnection a `TestScheduler` to skip its waits too.
///
/// ```swift
/// let server = MockWebSocket([.message(.text("welcome"))]) { sent in [.message(sent)] }  // echoes
/// let performer = MockPerformer { _ in .webSocket(server) }
/// let socket = try await performer.webSocket(ChatRoom(id: 7))
/// try await socket.send("hello")
/// // the socket's messages: "welcome", then "hello"; server.received == [.text("hello")]
/// ```
///
/// The script is one queue shared by the connections the client opens: a ``Event/close(code:reason:)`` or a
/// ``Event/drop`` ends the connection that plays it, and the next connection (a reconnection) plays what follows.
/// A client that waits for a message when the queue is empty waits until ``serve(_:)`` or a reply adds one.
public final class MockWebSocket: Sendable {
    /// One step of the script.
    public enum Event: Sendable, Equatable {
        /// The server sends a message.
        case message(WebSocketMessage)

        /// The server closes the connection with a close frame.
        case close(code: WebSocket.CloseCode, reason: String)

        /// The connection drops with no close frame (1006), as when the network goes.
        case drop
    }

    private struct State {
        var queue: [Event]
        var received: [WebSocketMessage] = []
        var clientClose: (code: WebSocket.CloseCode, reason: String)?
        var connections = 0
        /// The connection playing the script, and the receive it is waiting on.
        var current: Int?
        var waiting: (@Sendable (Result<WebSocketChannelEvent, any Error>) -> Void)?
        /// How each connection that is over ended: what every later receive on it gets.
        var endings: [Int: Result<WebSocketChannelEvent, any Error>] = [:]

        /// Ends the connection playing the script with `ending`.
        mutating func end(with ending: Result<WebSocketChannelEvent, any Error>) {
            if let current {
                endings[current] = ending
            }
            current = nil
        }
    }

    private let state: Locked<State>
    private let reply: (@Sendable (WebSocketMessage) -> [Event])?

    /// Creates a server.
    ///
    /// - Parameters:
    ///   - script: What the server does, in order. The default is nothing.
    ///   - reply: What the server does when the client sends a message, added to the end of the script; `nil` (the
    ///     default) for nothing.
    public init(_ script: [Event] = [], reply: (@Sendable (WebSocketMessage) -> [Event])? = nil) {
        self.state = Locked(State(queue: script))
        self.reply = reply
    }

    /// Adds `events` to the end of the script: a message that arrives while the test runs, a late close or drop.
    ///
    /// - Parameter events: What the server does next.
    public func serve(_ events: Event...) {
        let delivery = state.withLock { state in
            state.queue += events
            return Self.deliver(&state)
        }
        delivery?()
    }

    /// The messages the client sent, in order, over every connection.
    public var received: [WebSocketMessage] {
        state.withLock { $0.received }
    }

    /// How many connections the client opened: 1, plus one per reconnection.
    public var connections: Int {
        state.withLock { $0.connections }
    }

    /// The code and reason of the client's close frame, once it has sent one.
    public var clientClose: (code: WebSocket.CloseCode, reason: String)? {
        state.withLock { $0.clientClose }
    }

    /// A new connection, which plays the rest of the script; the one before it is over.
    package func open(maximumMessageSize: Int) -> any WebSocketChannel {
        let (id, dropped) = state.withLock { state in
            state.end(with: .failure(Self.dropped))
            state.connections += 1
            state.current = state.connections
            let dropped = state.waiting
            state.waiting = nil
            return (state.connections, dropped)
        }
        dropped?(.failure(Self.dropped))
        return Channel(server: self, id: id, maximumMessageSize: maximumMessageSize)
    }

    /// The next step of the script for the waiting receive, to run outside the lock; `nil` when there is none.
    private static func deliver(_ state: inout State) -> (() -> Void)? {
        guard let waiting = state.waiting, !state.queue.isEmpty else {
            return nil
        }
        state.waiting = nil
        let event = state.queue.removeFirst()
        switch event {
        case .message(let message):
            return { waiting(.success(.message(message))) }
        case .close(let code, let reason):
            state.end(with: .success(.closed(code: Int(code.rawValue), reason: reason)))
            return { waiting(.success(.closed(code: Int(code.rawValue), reason: reason))) }
        case .drop:
            state.end(with: .failure(dropped))
            return { waiting(.failure(dropped)) }
        }
    }

    private static let dropped = FetchError.webSocketClosed(
        code: 1006, reason: "the mock server dropped the connection without a close frame")

    private static let closed = FetchError.webSocketClosed(code: 1000, reason: "the connection has closed")

    /// One connection to the server.
    private final class Channel: WebSocketChannel {
        let server: MockWebSocket
        let id: Int
        let maximumMessageSize: Int

        init(server: MockWebSocket, id: Int, maximumMessageSize: Int) {
            self.server = server
            self.id = id
            self.maximumMessageSize = maximumMessageSize
        }

        func receive(_ completion: @escaping @Sendable (Result<WebSocketChannelEvent, any Error>) -> Void) {
            let delivery = server.state.withLock { state -> (() -> Void)? in
                guard state.current == id else {
                    let ending = state.endings[id] ?? .failure(MockWebSocket.closed)
                    return { completion(ending) }
                }
                let limit = maximumMessageSize
                state.waiting = { [server] event in
                    guard case .success(.message(let message)) = event, message.bytes.count > limit else {
                        completion(event)
                        return
                    }
                    let failure = FetchError.webSocketClosed(
                        code: 1009,
                        reason: "the mock server sent a \(message.kind) message of \(message.bytes.count) bytes,"
                            + " over the maximum message size of \(limit) bytes")
                    server.state.withLock { $0.end(with: .failure(failure)) }
                    completion(.failure(failure))
                }
                return MockWebSocket.deliver(&state)
            }
            delivery?()
        }

        func send(_ message: WebSocketMessage, _ completion: @escaping @Sendable ((any Error)?) -> Void) {
            guard server.state.withLock({ $0.current == id }) else {
                completion(MockWebSocket.closed)
                return
            }
            // The reply runs outside the lock: it may call `serve`.
            let replies = server.reply?(message) ?? []
            let delivery = server.state.withLock { state in
                state.received.append(message)
                state.queue += replies
                return MockWebSocket.deliver(&state)
            }
            completion(nil)
            delivery?()
        }

        func ping(_ completion: @escaping @Sendable ((any Error)?) -> Void) {
            let isOpen = server.state.withLock { $0.current == id }
            completion(isOpen ? nil : MockWebSocket.closed)
        }

        func close(code: WebSocket.CloseCode, reason: String) {
            let waiting = server.state.withLock {
                state -> (@Sendable (Result<WebSocketChannelEvent, any Error>) -> Void)? in
                guard state.current == id else {
                    return nil
                }
                state.clientClose = (code, reason)
                // The server answers the close frame with its own, echoing the code: now, or at the next receive.
                state.end(with: .success(.closed(code: Int(code.rawValue), reason: reason)))
                let waiting = state.waiting
                state.waiting = nil
                return waiting
            }
            waiting?(.success(.closed(code: Int(code.rawValue), reason: reason)))
        }

        func cancel() {
            let waiting = server.state.withLock {
                state -> (@Sendable (Result<WebSocketChannelEvent, any Error>) -> Void)? in
                guard state.current == id else {
                    return nil
                }
                state.end(with: .failure(FetchError.cancelled()))
                let waiting = state.waiting
                state.waiting = nil
                return waiting
            }
            waiting?(.failure(FetchError.cancelled()))
        }
    }
}
