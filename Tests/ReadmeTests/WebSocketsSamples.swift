import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A chat room's WebSocket.
struct ChatRoom: Request {
    let id: Int
    var url: URL { URL(string: "wss://chat.example.com/rooms/\(id)") ?? baseURL }
}

/// A line of chat, as JSON.
struct ChatLine: Codable {
    let text: String
}

/// An update of a chat room, as JSON.
struct ChatUpdate: Decodable {
    let text: String
}

// MARK: - The WebSockets article

func webSocketOpeningSample(session: Session, tokens: BearerAuthenticator) async throws {
    // DOC-BEGIN
    let chat =
        session
        .with(.observe { event in print(event) })  // GET wss://chat.example.com/rooms/7 → 101 Switching Protocols, …
        .with(.authenticate(with: tokens))
    let socket = try await chat.webSocket(ChatRoom(id: 7))
    print(socket.response.status)  // 101, with the server's header fields (Sec-WebSocket-Protocol, for one)
    // DOC-END
}

func webSocketSendingSample(socket: WebSocket) async throws {
    // DOC-BEGIN
    try await socket.send("hello")  // a text message
    try await socket.send(Data([0x01, 0x02]))  // a binary message
    try await socket.send(json: ChatLine(text: "hello"))  // {"text":"hello"}, as a text message
    // DOC-END
}

func webSocketReceivingSample(socket: WebSocket) async throws {
    // DOC-BEGIN
    for try await message in socket {
        switch message {
        case .text(let text): print(text)
        case .binary(let data): print("\(data.count) bytes")
        }
    }
    for try await message in socket {
        let line = try message.decode(ChatLine.self)
        print(line.text)
    }
    // DOC-END
}

func webSocketPingSample(socket: WebSocket) async throws {
    // DOC-BEGIN
    try await socket.ping()
    // DOC-END
}

func webSocketEndingSample(socket: WebSocket) async throws {
    // DOC-BEGIN
    do {
        for try await message in socket {
            print(message)
        }
        let code = socket.closeCode.map { String($0.rawValue) } ?? "no code"
        print("closed by the server: \(code) \(socket.closeReason ?? "")")
    } catch let error as FetchError where error.code == .webSocketClosed {
        print("ended abnormally: \(error)")  // the code, who closed, and why
    }
    socket.close(code: .normalClosure, reason: "bye")  // after the end, does nothing
    // DOC-END
}

func webSocketMessageSizeSample(session: Session) async throws {
    // DOC-BEGIN
    let socket = try await session.webSocket(ChatRoom(id: 7), maximumMessageSize: 64 * 1024)
    // DOC-END
    socket.close()
}

func webSocketConfigurationSample(session: Session) async throws {
    // DOC-BEGIN
    var configuration = WebSocket.Configuration()
    configuration.reconnectPolicy = ReconnectPolicy()
    let socket = try await session.webSocket(ChatRoom(id: 7), configuration: configuration)
    // DOC-END
    socket.close()
}

func webSocketKeepaliveSample(session: Session) async throws {
    // DOC-BEGIN
    var configuration = WebSocket.Configuration()
    configuration.pingInterval = 15  // a ping 15 s after the last pong; nil for none
    configuration.pongTimeout = 5  // no pong within 5 s: the connection counts as dropped (1006)
    configuration.sendTimeout = 10  // a send or ping that waits longer throws FetchError.timedOut
    let socket = try await session.webSocket(ChatRoom(id: 7), configuration: configuration)
    // DOC-END
    socket.close()
}

func webSocketCancelledSendSample(socket: WebSocket) async throws {
    // DOC-BEGIN
    let sending = Task { try await socket.send(json: ChatLine(text: "hello")) }
    sending.cancel()  // ends the wait, not the connection: the message may still go out
    // DOC-END
    _ = await sending.result
}

func webSocketReconnectEventsSample(session: Session) async throws {
    // DOC-BEGIN
    var configuration = WebSocket.Configuration()
    configuration.reconnectPolicy = ReconnectPolicy()
    configuration.onReconnect = { socket in
        try await socket.send(json: ChatLine(text: "subscribe"))  // a new connection knows nothing of the old one
    }
    let room = session.with(
        .observe { event in
            switch event.name {
            case .webSocketDropped: print("offline: \(event.error.map { "\($0)" } ?? "")")
            case .reconnecting: print("reconnecting in \(event.delay ?? 0) s (attempt \(event.attempt ?? 1))")
            case .webSocketOpened: print("online (connection \(event.attempt ?? 1))")
            default: break
            }
        })
    let socket = try await room.webSocket(ChatRoom(id: 7), configuration: configuration)
    // DOC-END
    socket.close()
}

func webSocketCompressionSample(session: Session) async throws {
    // DOC-BEGIN
    var configuration = WebSocket.Configuration()
    configuration.compression = .disabled  // secrets beside text an attacker chooses: no compression
    // DOC-END
    let socket = try await session.webSocket(ChatRoom(id: 7), configuration: configuration)
    socket.close()
}

func webSocketReconnectSample(session: Session) async throws {
    // DOC-BEGIN
    let policy = ReconnectPolicy(maximumFailuresInARow: 10)
    let socket = try await session.webSocket(ChatRoom(id: 7), reconnectPolicy: policy)
    // DOC-END
    socket.close()
}

// DOC-BEGIN
struct ChatClient {
    let performer: any RequestPerforming

    /// Joins the room, says so, and reads the room's lines until the server closes.
    func join(_ room: Int, as name: String) async throws -> [ChatLine] {
        let socket = try await performer.webSocket(ChatRoom(id: room))
        try await socket.send(json: ChatLine(text: "\(name) joined"))
        var lines: [ChatLine] = []
        for try await message in socket {
            lines.append(try message.decode(ChatLine.self))
        }
        return lines
    }
}

@Test func joiningSaysSoAndReadsTheRoom() async throws {
    let server = MockWebSocket([.message(.text(#"{"text": "welcome"}"#))]) { sent in
        [.message(sent), .close(code: .normalClosure, reason: "")]  // echoes, then closes
    }
    let client = ChatClient(performer: MockPerformer { _ in .webSocket(server) })
    let lines = try await client.join(7, as: "Ada")
    #expect(lines.map(\.text) == ["welcome", "Ada joined"])
    #expect(server.received == [.text(#"{"text":"Ada joined"}"#)])
}
// DOC-END

// DOC-BEGIN
@Test func readsTheRoomAcrossADrop() async throws {
    let server = MockWebSocket([
        .message(.text(#"{"text": "one"}"#)), .drop,
        .message(.text(#"{"text": "two"}"#)), .close(code: .normalClosure, reason: ""),
    ])
    let scheduler = TestScheduler()
    let socket = try await MockPerformer { _ in .webSocket(server) }.webSocket(
        ChatRoom(id: 7), reconnectPolicy: ReconnectPolicy(), scheduler: scheduler)
    var lines: [String] = []
    for try await message in socket {
        lines.append(try message.decode(ChatLine.self).text)
    }
    #expect(lines == ["one", "two"])
    #expect(server.connections == 2)
    #expect(scheduler.delays == [3])
}
// DOC-END

// MARK: - The doc comments of the WebSocket sources

func webSocketDocCommentSample(session: Session) async throws {
    // DOC-BEGIN
    let socket = try await session.webSocket(ChatRoom(id: 7))
    try await socket.send(json: ChatLine(text: "hello"))
    for try await message in socket {
        let line = try message.decode(ChatLine.self)
        print(line.text)
    }
    // DOC-END
}

func webSocketMessageDocCommentSample(socket: WebSocket) async throws {
    // DOC-BEGIN
    for try await message in socket {
        let update = try message.decode(ChatUpdate.self)
        print(update.text)
    }
    // DOC-END
}

func openingAWebSocketDocCommentSample(session: Session, tokens: BearerAuthenticator) async throws {
    // DOC-BEGIN
    let socket = try await session.with(.authenticate(with: tokens)).webSocket(ChatRoom(id: 7))
    // DOC-END
    socket.close()
}

@Test func theMockWebSocketDocCommentSampleEchoes() async throws {
    // DOC-BEGIN
    let server = MockWebSocket([.message(.text("welcome"))]) { sent in [.message(sent)] }  // echoes
    let performer = MockPerformer { _ in .webSocket(server) }
    let socket = try await performer.webSocket(ChatRoom(id: 7))
    try await socket.send("hello")
    // the socket's messages: "welcome", then "hello"; server.received == [.text("hello")]
    // DOC-END
    var iterator = socket.makeAsyncIterator()
    #expect(try await iterator.next() == .text("welcome"))
    #expect(try await iterator.next() == .text("hello"))
    #expect(server.received == [.text("hello")])
}

// MARK: - Claims of the WebSockets article

/// "recording writes the handshake to the HAR file with its `101` head (the messages that follow are not recorded)"
@Test func recordingWritesTheHandshakeWithIts101HeadAndNotTheMessages() async throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "websocket-har-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }  // a temporary directory left over is harmless
    let file = directory.appending(path: "chat.har")
    let server = MockWebSocket([.message(.text("welcome"))]) { sent in
        [.message(sent), .close(code: .normalClosure, reason: "")]
    }
    let socket = try await MockPerformer { _ in .webSocket(server) }.with(.record(to: file)).webSocket(ChatRoom(id: 7))
    try await socket.send("hello")
    var messages = 0
    for try await _ in socket {
        messages += 1
    }
    #expect(messages == 2)
    let archive = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
    let entries = (archive?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
    #expect(entries.count == 1)
    #expect((entries.first?["response"] as? [String: Any])?["status"] as? Int == 101)
    #expect((entries.first?["request"] as? [String: Any])?["url"] as? String == "wss://chat.example.com/rooms/7")
}
