#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    /// Opening and closing many connections leaves none open: on the server, and in this process's descriptors.
    @Suite(.timeLimit(.minutes(3))) struct CurlWebSocketSoakTests {
        static let childVariable = "FETCH_WEBSOCKET_SOAK_CHILD"

        /// In a process of its own, so that the descriptors of the tests running in parallel do not blur the count.
        @Test func twoHundredConnectionsOpenedAndClosedLeaveNoneOpen() async throws {
            guard
                try await ChildTestRun.isChild(
                    running: "CurlWebSocketSoakTests/twoHundredConnectionsOpenedAndClosedLeaveNoneOpen",
                    marking: Self.childVariable, within: .seconds(150))
            else {
                return
            }
            let server = try WebSocketTestServer.plain.get()
            let transport = try CurlTransport()
            // Warm up: the loop's thread and pipe, and what TLS opens once per process.
            try await Self.openAndClose(2, through: transport, server: server)
            try await Self.cancelWhileConnectingTLS(1, through: transport, server: server)
            let before = try Self.openDescriptors()
            try await Self.openAndClose(200, through: transport, server: server)
            try await Self.cancelWhileConnectingTLS(5, through: transport, server: server)
            #expect(try await Self.serverConnections(server, transport: transport) == 0)
            // The handle of each ended connection is freed on the loop's thread, and a cancelled connect's by its own
            // thread once libcurl's progress callback (called about once a second) has aborted it: up to 10 s on a
            // loaded machine.
            var after = try Self.openDescriptors()
            for _ in 0..<500 where after.count > before.count {
                try await Task.sleep(for: .milliseconds(20))
                after = try Self.openDescriptors()
            }
            #expect(
                after.count <= before.count,
                "\(after.count - before.count) descriptors more than before 200 connections: now \(after), before \(before)"
            )
        }

        /// Opens `count` connections, a third each closed by the client, cancelled, and released unclosed.
        private static func openAndClose(
            _ count: Int, through transport: CurlTransport, server: WebSocketTestServer
        ) async throws {
            for index in 0..<count {
                let channel = try await transport.channel(try server.url("/echo"))
                try await channel.send(.text("\(index)"))
                #expect(try await channel.receive() == .message(.text("\(index)")))
                switch index % 3 {
                case 0:
                    channel.close(code: .normalClosure, reason: "")
                    #expect(try await channel.receive() == .closed(code: 1000, reason: ""))
                case 1:
                    channel.cancel()
                default:
                    break  // released: its connection is dropped
                }
            }
        }

        /// Opens `count` connections with `wss` to the plain server, whose TLS handshake never ends, and cancels each:
        /// libcurl's connect is aborted (by its progress callback), so the server sees every one go.
        private static func cancelWhileConnectingTLS(
            _ count: Int, through transport: CurlTransport, server: WebSocketTestServer
        ) async throws {
            let url = try #require(URL(string: "wss://127.0.0.1:\(server.port)/never"))
            for _ in 0..<count {
                var request = APIRequest(url)
                request.timeout = 60
                let result = await withCheckedContinuation { continuation in
                    let handle = transport.openWebSocket(request, maximumMessageSize: 1 << 20) { result in
                        continuation.resume(returning: result)
                    }
                    Thread.sleep(forTimeInterval: 0.05)  // into libcurl's TLS handshake; either way it is cancelled
                    handle.cancel()
                }
                guard case .cancelled = result.failureKind else {
                    Issue.record("expected cancelled, got \(result)")
                    return
                }
            }
        }

        /// The connections the server has open, waiting a little for the last ones to see their end.
        private static func serverConnections(_ server: WebSocketTestServer, transport: CurlTransport) async throws
            -> Int
        {
            var count = Int.max
            for _ in 0..<100 {
                let channel = try await transport.channel(try server.url("/count"))
                count = Int(try await channel.receiveText()) ?? .max
                channel.cancel()
                guard count > 0 else {
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            return count
        }

        /// What each open descriptor is, by number.
        private static func openDescriptors() throws -> [String: String] {
            var descriptors: [String: String] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
                // nil: the descriptor closed between the listing and the look (it still counts, as "?").
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
                descriptors[name] = target ?? "?"
            }
            return descriptors
        }
    }
#endif
