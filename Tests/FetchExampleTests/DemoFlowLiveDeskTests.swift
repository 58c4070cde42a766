import Fetch
import FetchTesting
import Foundation
import Testing

@testable import FetchExample

/// The flow's live desk step over FetchTesting's scripted server: the lines it writes when the desk talks, when it
/// cannot open, and when it breaks off.
@Suite struct DemoFlowLiveDeskTests {
    /// A flow whose API logs in through `performer` and opens the desk there, writing into `lines`.
    static func flow(_ performer: MockPerformer, lines: Captured<String>) async throws -> (DemoFlow, Transcript) {
        let api = Fixtures.api(performer)
        try await api.logIn(username: "ada", password: "secret")
        let transcript = Transcript(write: lines.capture)
        let flow = DemoFlow(
            api: api, configuration: try Configuration.load(from: ExampleFiles.configuration),
            liveDeskURL: URL(string: "ws://127.0.0.1:9/"), callbackQueue: OperationQueue(), transcript: transcript)
        return (flow, transcript)
    }

    /// A performer that logs in, and answers the desk's handshake with `answer`.
    static func performer(desk answer: @escaping @Sendable () -> MockResponse) -> MockPerformer {
        MockPerformer { request in
            request.url.path == "/api/users/login" ? .json(Fixtures.loginJSON) : answer()
        }
    }

    @Test func writesEachUpdateAndTheEchoAsTheRunDoesWhenTheDeskOpens() async throws {
        let backend = try DemoBackend(contentsOf: ExampleFiles.demoData)
        // What LiveDeskServer does: the backend's updates; at the post, a restart that drops the connection; on the
        // next connection, the echo of the post and a close with 1000.
        let posts = Captured<WebSocketMessage>()
        let desk = MockWebSocket(backend.deskUpdates().map { .message(.text($0)) }) { post in
            posts.capture(post)
            return posts.values.count == 1
                ? [.drop]
                : [
                    .message(.text(#"{"kind":"echo","text":"\#(DemoFlow.deskPost.text)"}"#)),
                    .close(code: .normalClosure, reason: "the desk is closed"),
                ]
        }
        let lines = Captured<String>()
        let (flow, transcript) = try await Self.flow(Self.performer { .webSocket(desk) }, lines: lines)
        await flow.talkOnTheLiveDesk()
        #expect(lines.values == FetchExampleCommandTests.liveDeskLines)
        #expect(transcript.failureCount == 0)
        let post = WebSocketMessage.text(#"{"kind":"post","text":"Ada is in the office today"}"#)
        #expect(desk.received == [post, post], "posted, and posted again by the reconnect hook")
        #expect(desk.connections == 2)
        #expect(desk.clientClose == nil, "the server closes the desk; the client answers")
    }

    @Test func aDeskThatDoesNotOpenIsOneLineAndNoFailure() async throws {
        let lines = Captured<String>()
        let (flow, transcript) = try await Self.flow(
            Self.performer { .json(#"{"error": true, "reason": "no desk today"}"#, status: 403) }, lines: lines)
        await flow.talkOnTheLiveDesk()
        #expect(lines.values.count == 1)
        #expect(lines.values.first?.hasPrefix(FetchExampleCommandTests.liveDeskNotOpened) == true)
        #expect(lines.values.first?.contains("no desk today") == true)
        #expect(transcript.failureCount == 0 && transcript.stepCount == 0)
    }

    @Test func aDeskThatBreaksOffAndCannotReopenIsAFailedStep() async throws {
        let desk = MockWebSocket([.message(.text(#"{"kind":"event","text":"a"}"#)), .drop])
        let handshakes = Captured<Int>()
        let performer = Self.performer {
            handshakes.capture(1)
            // The first handshake opens the desk; the reconnection after the drop finds it down.
            return handshakes.values.count == 1 ? .webSocket(desk) : MockResponse(status: 503)
        }
        let lines = Captured<String>()
        let (flow, transcript) = try await Self.flow(performer, lines: lines)
        await flow.talkOnTheLiveDesk()
        #expect(lines.values.first == "  ✓ live desk update (event): a")
        #expect(lines.values.dropFirst().first == "  – live desk dropped; reconnecting in 0.2 s (attempt 1)")
        #expect(lines.values.last?.hasPrefix("  ✗ live desk (WebSocket), after 1 update: ") == true)
        #expect(lines.values.last?.contains("503") == true)
        #expect(transcript.failureCount == 1)
    }
}
