import Fetch
import FetchTesting
import Foundation
import Testing

@testable import FetchExample

/// `API.liveDesk(at:)`: the live desk's WebSocket through the API's middlewares, over FetchTesting's scripted
/// server, with no network.
@Suite struct APILiveDeskTests {
    static let desk = URL(string: "ws://127.0.0.1:9/") ?? Fixtures.server

    @Test func opensWithTheLoginsTokenAndReadsTheUpdatesAndTheEcho() async throws {
        let server = MockWebSocket([.message(.text(#"{"kind": "event", "text": "All-hands meeting, Main hall"}"#))]) {
            sent in
            let post: String
            do {
                post = try sent.decode(DeskUpdate.self).text
            } catch {
                post = "not a post"
            }
            return [
                .message(.text(#"{"kind": "echo", "text": "\#(post)"}"#)),
                .close(code: .normalClosure, reason: "closed"),
            ]
        }
        let handshakes = Locked<[String]>([])
        let api = Fixtures.api(
            MockPerformer { request in
                if request.url.path == "/api/users/login" {
                    return .json(Fixtures.loginJSON)
                }
                handshakes.withLock { $0.append("\(request.url) \(request.headers["Authorization"] ?? "none")") }
                return .webSocket(server)
            })
        try await api.logIn(username: "ada", password: "secret")
        let desk = try await api.liveDesk(at: Self.desk)
        try await desk.send(json: DemoFlow.deskPost)
        var updates: [DeskUpdate] = []
        for try await message in desk {
            updates.append(try message.decode(DeskUpdate.self))
        }
        #expect(handshakes.withLock { $0 } == ["ws://127.0.0.1:9/live Bearer t0k3n"])
        #expect(server.received == [.text(#"{"kind":"post","text":"Ada is in the office today"}"#)])
        #expect(
            updates == [
                DeskUpdate(kind: "event", text: "All-hands meeting, Main hall"),
                DeskUpdate(kind: "echo", text: "Ada is in the office today"),
            ])
        #expect(desk.closeCode == .normalClosure)
    }

    @Test func aHandshakeTurnedDownWith401LogsInAgainAndOpens() async throws {
        let server = MockWebSocket()
        let logins = Locked(0)
        let api = Fixtures.api(
            MockPerformer { request in
                if request.url.path == "/api/users/login" {
                    let count = logins.withLock { count in
                        count += 1
                        return count
                    }
                    return .json(#"{"token": "token-\#(count)", "user": {"id": "\#(Fixtures.userID)"}}"#)
                }
                guard request.headers["Authorization"] == "Bearer token-2" else {
                    return .json(#"{"error": true, "reason": "unknown or expired token; log in again"}"#, status: 401)
                }
                return .webSocket(server)
            })
        try await api.logIn(username: "ada", password: "secret")
        let desk = try await api.liveDesk(at: Self.desk)
        #expect(desk.response.status == 101)
        #expect(logins.withLock { $0 } == 2)
        #expect(server.connections == 1)
    }

    @Test func aRefusedHandshakeIsTheAPIsError() async throws {
        let api = Fixtures.api(
            MockPerformer { _ in .json(#"{"error": true, "reason": "no WebSocket here"}"#, status: 404) })
        await #expect {
            try await api.liveDesk(at: Self.desk)
        } throws: { error in
            (error as? APIError)?.status == 404 && "\(error)".contains("no WebSocket here")
        }
    }
}
