import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A middleware that edits a copy of the response `next` answered keeps a stream's body and a WebSocket's connection
/// with it; one that answers with a `Response` it made instead fails the call with an error that says so, and the
/// body or connection it dropped is closed rather than left open.
@Suite struct RebuiltResponseTests {
    let request = TestRequest("https://api.example.com/events")

    /// Answers with the response `next` answered, changed by `change`.
    static func changing(_ change: @escaping @Sendable (Response) -> Response) -> InterceptingMiddleware {
        .intercept { request, _, next, completion in
            next(request) { answer in
                completion(answer.map(change))
            }
        }
    }

    static let editsACopy = changing { response in
        var edited = response
        edited.headers["X-Edited"] = "yes"
        return edited
    }

    static let rebuilds = changing { response in
        Response(status: response.status, headers: response.headers, originalRequest: response.originalRequest)
    }

    @Test func aStreamWhoseHeadAMiddlewareEditedKeepsItsBody() async throws {
        let mock = MockStream(connections: [
            MockStream.Connection(steps: [.chunk(Data("a".utf8)), .chunk(Data("b".utf8))])
        ])
        let stream = try await mock.with(Self.editsACopy).stream(request)
        var body = Data()
        for try await chunk in stream {
            body.append(chunk)
        }
        #expect(String(decoding: body, as: UTF8.self) == "ab")
        #expect(stream.response.headers["X-Edited"] == "yes")
    }

    @Test func aStreamAnsweredWithAResponseAMiddlewareMadeFailsClearly() async throws {
        let mock = MockStream(connections: [MockStream.Connection(steps: [.chunk(Data("a".utf8))])])
        do {
            let stream = try await mock.with(Self.rebuilds).stream(request)
            Issue.record("expected a failure, got a stream of \(stream.response.status)")
        } catch {
            #expect(String(describing: error).contains("a middleware answered with a Response it made"), "\(error)")
            #expect(String(describing: error).contains("streamed body"), "\(error)")
        }
    }

    @Test func aStreamAMiddlewareAnswersOnItsOwnIsItsWholeBody() async throws {
        let answersAlone = InterceptingMiddleware.intercept { request, _, _, completion in
            completion(.success(Response(status: 200, data: Data("local".utf8), originalRequest: request)))
        }
        let stream = try await MockStream(connections: []).with(answersAlone).stream(request)
        var body = Data()
        for try await chunk in stream {
            body.append(chunk)
        }
        #expect(String(decoding: body, as: UTF8.self) == "local")
    }

    @Test func aWebSocketWhoseHandshakeAMiddlewareEditedKeepsItsConnection() async throws {
        let server = MockWebSocket([.message(.text("hi")), .close(code: .normalClosure, reason: "")])
        let socket = try await MockPerformer { _ in .webSocket(server) }.with(Self.editsACopy).webSocket(request)
        #expect(socket.response.headers["X-Edited"] == "yes")
        var messages: [WebSocketMessage] = []
        for try await message in socket {
            messages.append(message)
        }
        #expect(messages == [.text("hi")])
    }

    @Test func aWebSocketHandshakeAnsweredWithAResponseAMiddlewareMadeFailsAndClosesTheConnection() async throws {
        let server = MockWebSocket([.message(.text("hi"))])
        do {
            let socket = try await MockPerformer { _ in .webSocket(server) }.with(Self.rebuilds).webSocket(request)
            Issue.record("expected a failure, got a socket of \(socket.response.status)")
        } catch {
            #expect(String(describing: error).contains("WebSocket connection"), "\(error)")
        }
        #expect(server.clientClose?.code == .goingAway)
    }
}
