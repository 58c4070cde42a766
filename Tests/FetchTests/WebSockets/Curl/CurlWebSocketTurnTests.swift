#if os(Linux)
    import Fetch
    import FetchTesting
    import Foundation
    import Testing

    /// RFC 6455 §4.1 on libcurl: an opening to a host and port waits while another to them is on its way, and its
    /// own timeout and cancellation still end it there.
    @Suite(.timeLimit(.minutes(2))) struct CurlWebSocketTurnTests {
        @Test func anOpeningWaitsForTheOneBeforeItThenOpens() async throws {
            let server = try WebSocketTestServer.plain.get()
            let transport = try CurlTransport()
            var silent = APIRequest(try server.url("/silent"))
            silent.timeout = 600  // beyond any slowness of a loaded sanitized run: only the cancel ends it
            let first = Captured<Result<Response, any Error>>()
            let second = Captured<Result<Response, any Error>>()
            let holding = transport.openWebSocket(silent, maximumMessageSize: 1 << 20) { first.capture($0) }
            try await CurlWebSocketOpeningResourceTests.waitForOpenConnections(
                atLeast: 1, on: server, transport: transport)
            _ = transport.openWebSocket(APIRequest(try server.url("/echo")), maximumMessageSize: 1 << 20) {
                second.capture($0)
            }
            #expect(second.values.isEmpty, "the second opening went ahead while the first was on its way")
            holding.cancel()
            let opened = try await second.first(timeout: 30)
            let response = try opened.get()
            #expect(response.status == 101)
            (response.webSocketChannel as? any CancellableCall)?.cancel()
            if case .cancelled = try await first.first().failureKind {
            } else {
                Issue.record("the silent opening did not end as cancelled")
            }
        }

        @Test func anOpeningWhoseTimeoutPassesWhileItWaitsEndsThere() async throws {
            let server = try WebSocketTestServer.plain.get()
            let transport = try CurlTransport()
            var silent = APIRequest(try server.url("/silent"))
            silent.timeout = 600  // beyond any slowness of a loaded sanitized run: only the cancel ends it
            let first = Captured<Result<Response, any Error>>()
            let holding = transport.openWebSocket(silent, maximumMessageSize: 1 << 20) { first.capture($0) }
            defer { holding.cancel() }
            try await CurlWebSocketOpeningResourceTests.waitForOpenConnections(
                atLeast: 1, on: server, transport: transport)
            var waiting = APIRequest(try server.url("/echo"))
            waiting.timeout = 0.3
            let second = Captured<Result<Response, any Error>>()
            _ = transport.openWebSocket(waiting, maximumMessageSize: 1 << 20) { second.capture($0) }
            let ended = try await second.first(timeout: 30)
            guard case .timedOut = ended.failureKind else {
                Issue.record("a waiting opening past its timeout ended with \(ended)")
                return
            }
            #expect(first.values.isEmpty, "the silent opening ended before it was cancelled")
        }
    }
#endif
