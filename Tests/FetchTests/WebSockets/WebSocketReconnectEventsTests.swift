import Fetch
import FetchTesting
import Foundation
import Testing

/// The events of a WebSocket's life and its reconnect hook, over FetchTesting's scripted server and virtual time:
/// what an app's observer sees, synchronously.
@Suite struct WebSocketReconnectEventsTests {
    struct Room: Request {
        var url = URL(string: "ws://chat.test/rooms/7")!
    }

    /// A drop and a reconnection, seen through `.observe`: each event once, in order, with what it says.
    @Test func aDropAndAReconnectionAreEventsInOrderExactlyOnce() async throws {
        let server = MockWebSocket([
            .message(.text("a")), .drop, .message(.text("b")), .close(code: .normalClosure, reason: ""),
        ])
        let events = Locked<[FetchEvent]>([])
        let names: Set<FetchEvent.Name> = [.webSocketOpened, .webSocketClosed, .webSocketDropped, .reconnecting]
        let performer = MockPerformer { _ in .webSocket(server) }.with(
            .observe { event in
                if names.contains(event.name) {
                    events.withLock { $0.append(event) }
                }
            })
        var configuration = WebSocket.Configuration()
        configuration.reconnectPolicy = ReconnectPolicy(backoff: Backoff(initialDelay: 2, maximumDelay: 30, jitter: 0))
        let socket = try await performer.webSocket(Room(), configuration: configuration, scheduler: TestScheduler())
        var messages: [WebSocketMessage] = []
        for try await message in socket {
            messages.append(message)
        }
        #expect(messages == [.text("a"), .text("b")])
        let seen = events.withLock { $0 }
        #expect(
            seen.map(\.name) == [
                .webSocketOpened, .webSocketDropped, .reconnecting, .webSocketOpened, .webSocketClosed,
            ])
        #expect(seen.map(\.attempt) == [1, nil, 1, 2, nil])
        #expect(seen[2].delay == 2)
        guard case .webSocketClosed(1006, _, _) = seen[1].error?.fetchKind,
            case .webSocketClosed(1006, _, _) =
                seen[2].error?.fetchKind
        else {
            Issue.record("the drop and the reconnection carry the drop's error: \(seen)")
            return
        }
        #expect(seen[4].closeCode == .normalClosure && seen[4].closedByServer == true)
    }

    /// The app's close while a reconnection waits ends the socket's life in an event: closed by the client, with its
    /// code, after the drop that started the reconnection.
    @Test func closingWhileReconnectingIsTheLastEventClosedByTheClient() async throws {
        let server = MockWebSocket([.message(.text("a")), .drop, .message(.text("never"))])
        let events = Captured<FetchEvent>()
        let performer = MockPerformer { _ in .webSocket(server) }.with(
            .observe { event in
                if event.name.description.hasPrefix("webSocket") || event.name == .reconnecting {
                    events.capture(event)
                }
            })
        var configuration = WebSocket.Configuration()
        configuration.reconnectPolicy = ReconnectPolicy()
        let scheduler = TestScheduler(runsImmediately: false)
        let socket = try await performer.webSocket(Room(), configuration: configuration, scheduler: scheduler)
        let reading = Task {
            var received: [WebSocketMessage] = []
            for try await message in socket {
                received.append(message)
            }
            return received
        }
        // Opened, dropped, reconnecting: the reconnection now waits for virtual time that never comes.
        _ = try await events.wait(for: 3)
        socket.close(code: .goingAway, reason: "leaving")
        _ = await reading.result
        let seen = events.values
        #expect(seen.map(\.name) == [.webSocketOpened, .webSocketDropped, .reconnecting, .webSocketClosed])
        #expect(seen.last?.closeCode == .goingAway && seen.last?.closedByServer == false)
        #expect(seen.last?.reason == "leaving")
    }

    /// The hook runs once per reopening, after it opened and before the new connection's first message arrives.
    @Test func theReconnectHookRunsOncePerReopeningBeforeItsFirstMessage() async throws {
        let server = MockWebSocket([
            .message(.text("a")), .drop, .message(.text("b")), .drop, .message(.text("c")),
            .close(code: .normalClosure, reason: ""),
        ])
        let hooks = Locked<[Int]>([])
        var configuration = WebSocket.Configuration()
        configuration.reconnectPolicy = ReconnectPolicy()
        configuration.onReconnect = { socket in
            hooks.withLock { $0.append(server.connections) }
            try await socket.send("subscribe")
        }
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(
            Room(), configuration: configuration, scheduler: TestScheduler())
        var seen: [(WebSocketMessage, [Int])] = []
        for try await message in socket {
            seen.append((message, hooks.withLock { $0 }))
        }
        #expect(seen.map(\.0) == [.text("a"), .text("b"), .text("c")])
        // When "b" arrived the hook had run for connection 2, and when "c" arrived for connection 3.
        #expect(seen.map(\.1) == [[], [2], [2, 3]])
        #expect(server.received == [.text("subscribe"), .text("subscribe")])
    }

    /// A hook that throws ends the sequence with its error and closes the connection.
    @Test func aReconnectHookThatThrowsEndsTheSequenceWithItsError() async throws {
        struct Refused: Error {}
        let server = MockWebSocket([.drop, .message(.text("never"))])
        var configuration = WebSocket.Configuration()
        configuration.reconnectPolicy = ReconnectPolicy()
        configuration.onReconnect = { _ in throw Refused() }
        let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(
            Room(), configuration: configuration, scheduler: TestScheduler())
        await #expect(throws: Refused.self) {
            for try await message in socket {
                Issue.record("no message expected, got \(message)")
            }
        }
        #expect(server.clientClose?.code == .normalClosure)
    }

    /// After the iterating task is cancelled (which closes with 1001), a send names that close, not 1000.
    @Test func aSendAfterACancelledReadNamesTheCloseThatHappened() async throws {
        let socket = try await MockPerformer { _ in .webSocket(MockWebSocket()) }.webSocket(Room())
        let reading = Task {
            for try await _ in socket {}
        }
        reading.cancel()
        _ = await reading.result
        await #expect {
            try await socket.send("too late")
        } throws: { error in
            guard case .webSocketClosed(let code, let reason, _) = error.fetchKind else {
                return false
            }
            return code == 1001 && reason.contains("cancelled")
        }
    }
}
