#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    /// permessage-deflate on the libcurl channel against the raw server of `websocket_server.py`, which answers the
    /// handshake with whatever `Sec-WebSocket-Extensions` a test asks for and sends frames as given: bad answers fail
    /// the handshake, and RSV1 where the RFC allows none is answered with 1002, on both Linux transports.
    @Suite(.timeLimit(.minutes(2)), .enabled(if: Zlib.isAvailable, "needs zlib (libz.so.1)"))
    struct CurlWebSocketCompressionTests {
        let server: WebSocketTestServer

        init() throws {
            server = try WebSocketTestServer.plain.get()
        }

        /// `value` percent-encoded for a query.
        private func query(_ value: String) -> String {
            value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
        }

        @Test(arguments: WebSocketTransportKind.allCases)
        func theHandshakeOffersPermessageDeflateAndReadsTheAgreement(kind: WebSocketTransportKind) async throws {
            let answer = "permessage-deflate; server_no_context_takeover; client_max_window_bits=10"
            // "Hello", compressed without context (RFC 7692 §7.2.3.1).
            let hello = "c107f248cdc9c90700"
            let channel = try await kind.make().channel(
                try server.url("/raw?extensions=\(query(answer))&hex=\(hello)"))
            #expect(try await channel.receive() == .message(.text("Hello")))
            channel.cancel()
        }

        @Test(arguments: WebSocketTransportKind.allCases)
        func withCompressionDisabledNothingIsOfferedAndAnAcceptanceFailsTheHandshake(
            kind: WebSocketTransportKind
        ) async throws {
            let transport = try kind.make()
            let request = APIRequest(try server.url("/raw?extensions=permessage-deflate"))
            let result = await withCheckedContinuation { continuation in
                _ = transport.openWebSocket(request, maximumMessageSize: 1 << 20, compression: .disabled) {
                    continuation.resume(returning: $0)
                }
            }
            guard case .webSocketHandshakeFailed(let reason, _) = result.failureKind else {
                Issue.record("expected webSocketHandshakeFailed, got \(result)")
                return
            }
            #expect(reason.contains("which was not asked for"), "\(reason)")
        }

        @Test(arguments: [
            (["permessage-deflate; server_max_window_bits=7"], "server_max_window_bits"),
            (["permessage-deflate", "permessage-deflate"], "2 extensions"),
            (["permessage-deflate; client_no_context_takeover; client_no_context_takeover"], "repeats"),
            (["permessage-deflate; zebra"], "unknown parameter zebra"),
            (["x-webkit-deflate-frame"], "not offered"),
        ])
        func aBadExtensionAnswerFailsTheHandshake(answers: [String], naming: String) async throws {
            let extensions = answers.map { "extensions=\(query($0))" }.joined(separator: "&")
            let error = await #expect(throws: FetchError.self) {
                try await CurlTransport().openWebSocket(try server.url("/raw?\(extensions)"))
            }
            guard case .webSocketHandshakeFailed(let reason, let response) = error?.fetchKind else {
                Issue.record("expected webSocketHandshakeFailed, got \(String(describing: error))")
                return
            }
            #expect(response.status == 101)
            #expect(reason.contains(naming), "\(reason)")
        }

        struct Misuse: Sendable, CustomTestStringConvertible {
            let name: String
            let hex: String
            let code: Int
            var testDescription: String { name }
        }

        static let misuses = [
            Misuse(name: "RSV1 on a continuation frame", hex: "010161" + "c00162", code: 1002),
            Misuse(name: "RSV1 on a ping", hex: "c900", code: 1002),
            Misuse(name: "RSV2 on a text frame", hex: "a100", code: 1002),
            Misuse(name: "invalid DEFLATE data", hex: "c202ffff", code: 1002),
            // "a", 0xC3, "(" compressed: valid DEFLATE, invalid UTF-8 once inflated.
            Misuse(name: "text that is not UTF-8 once inflated", hex: "c1054a3cac0100", code: 1007),
        ]

        @Test(arguments: misuses, WebSocketTransportKind.allCases)
        func reservedBitMisuseIsAnsweredWithTheRightCloseCode(misuse: Misuse, kind: WebSocketTransportKind)
            async throws
        {
            let transport = try kind.make()
            let id = UUID().uuidString
            let channel = try await transport.channel(
                try server.url("/raw?extensions=permessage-deflate&hex=\(misuse.hex)&id=\(id)"))
            let error = await #expect(throws: FetchError.self) { try await channel.receive() }
            guard case .webSocketClosed(let code, _, _) = error?.fetchKind else {
                Issue.record("expected webSocketClosed, got \(String(describing: error))")
                return
            }
            #expect(code == misuse.code)
            let report = try await closeReport(id, from: server, transport: transport)
            #expect(report?.first == "\(misuse.code)", "the server received \(String(describing: report))")
        }
    }
#endif
