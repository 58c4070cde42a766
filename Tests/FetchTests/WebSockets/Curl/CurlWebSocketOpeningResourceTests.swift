#if os(Linux)
    import Fetch
    import FetchTesting
    import Foundation
    import Testing

    /// What pending libcurl WebSocket openings cost the process (threads in `/proc/self/task`, descriptors in
    /// `/proc/self/fd`) while a server accepts their connections and never answers the handshake, and that cancelling
    /// them gives it all back. Measured in a child process, away from the threads and descriptors of the tests that
    /// run beside it. One opening at a time goes to a host and port (RFC 6455 §4.1): the others wait with no thread
    /// and no descriptor, so a silent server costs one thread and one connection however many openings wait for it.
    @Suite(.timeLimit(.minutes(3))) struct CurlWebSocketOpeningResourceTests {
        static let variable = "FETCH_WEBSOCKET_OPENINGS_CHILD"
        static let openings = 100

        @Test func pendingOpeningsAreBoundedAndCancellingThemReleasesEverything() async throws {
            guard ChildSuiteRun.isChild(Self.variable) else {
                if ChildSuiteRun.isAvailable {
                    try await ChildSuiteRun.run(
                        suite: "CurlWebSocketOpeningResourceTests", variable: Self.variable, timeout: .seconds(150))
                }
                return
            }
            let server = try WebSocketTestServer.plain.get()
            let transport = try CurlTransport()
            var request = APIRequest(try server.url("/silent"))
            request.timeout = 120
            // One opening first, so that the loop's thread and libcurl's own state exist before the baseline.
            let warmup = Captured<Result<Response, any Error>>()
            transport.openWebSocket(request, maximumMessageSize: 1 << 20) { warmup.capture($0) }.cancel()
            _ = try await warmup.first()
            let before = try Self.resources()

            let ended = Captured<Result<Response, any Error>>()
            let handles = (0..<Self.openings).map { _ in
                transport.openWebSocket(request, maximumMessageSize: 1 << 20) { ended.capture($0) }
            }
            try await Self.waitForOpenConnections(atLeast: 1, on: server, transport: transport)
            let pending = try Self.resources()
            #expect(
                pending.threads - before.threads <= 2,
                "\(Self.openings) pending openings took \(pending.threads - before.threads) threads")
            #expect(
                pending.descriptors - before.descriptors <= 12,
                "\(Self.openings) pending openings took \(pending.descriptors - before.descriptors) descriptors")
            // One silent connection, and perhaps the warm-up's, which the server may not have seen close yet.
            let held = try await Self.openConnections(on: server, transport: transport)
            #expect(held <= 2, "the server holds \(held) connections of \(Self.openings) openings")

            for handle in handles {
                handle.cancel()
            }
            let results = try await ended.wait(for: Self.openings, timeout: 30)
            #expect(
                results.allSatisfy {
                    if case .cancelled = $0.failureKind { true } else { false }
                })
            // Each opening's thread sees its cancellation at its next step and frees its handle: wait (bounded) for
            // the counts to come back.
            var after = try Self.resources()
            let deadline = ContinuousClock.now + .seconds(30)
            while after.threads > before.threads + 2 || after.descriptors > before.descriptors + 2,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(50))
                after = try Self.resources()
            }
            #expect(after.threads <= before.threads + 2, "threads: \(before.threads) before, \(after.threads) after")
            #expect(
                after.descriptors <= before.descriptors + 2,
                "descriptors: \(before.descriptors) before, \(after.descriptors) after")
        }

        /// The process's threads and open descriptors.
        static func resources() throws -> (threads: Int, descriptors: Int) {
            let files = FileManager.default
            return (
                try files.contentsOfDirectory(atPath: "/proc/self/task").count,
                try files.contentsOfDirectory(atPath: "/proc/self/fd").count
            )
        }

        /// Waits until the server holds at least `count` connections besides the one that asks (its `/count`).
        static func waitForOpenConnections(
            atLeast count: Int, on server: WebSocketTestServer, transport: CurlTransport
        ) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if try await openConnections(on: server, transport: transport) >= count {
                    return
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestServerError("the server never held \(count) connections")
        }

        /// The connections the server holds besides the one that asks. The question goes to `localhost`, another
        /// host than the openings' `127.0.0.1`, so that it does not wait for their turn.
        static func openConnections(on server: WebSocketTestServer, transport: CurlTransport) async throws -> Int {
            var components = try #require(URLComponents(url: try server.url("/count"), resolvingAgainstBaseURL: false))
            components.host = "localhost"
            let channel = try await transport.channel(try #require(components.url))
            defer { channel.cancel() }
            return Int(try await channel.receiveText()) ?? 0
        }
    }
#endif
