#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    /// Client conformance cases in the spirit of the Autobahn TestSuite's (whose fuzzing server needs Python 2): a
    /// hostile server (`websocket_server.py`'s `/raw`) sends exact bytes after the handshake, and each case checks
    /// what a `Session` on each transport hands the caller and which close code it sent back (the server's `/report`).
    @Suite struct WebSocketConformanceTests {
        struct Socket: Request {
            let url: URL
        }

        let server: WebSocketTestServer

        init() throws {
            server = try WebSocketTestServer.plain.get()
        }

        /// A frame as a server sends it (unmasked), in hex.
        static func frame(_ opcode: UInt8, _ payload: [UInt8], final: Bool = true, first: UInt8? = nil) -> String {
            var bytes = [first ?? ((final ? 0x80 : 0) | opcode)]
            switch payload.count {
            case ..<126:
                bytes.append(UInt8(payload.count))
            case ..<65536:
                bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
            default:
                bytes.append(127)
                bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
            }
            return (bytes + payload).map { String(format: "%02x", $0) }.joined()
        }

        static func text(_ text: String, final: Bool = true) -> String {
            frame(1, Array(text.utf8), final: final)
        }

        static func close(_ code: Int?, _ reason: String = "") -> String {
            frame(8, code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] + Array(reason.utf8) } ?? [])
        }

        /// What a session on `transport` makes of `hex`: the messages, then the end (`nil` for a clean one), and
        /// the close code the client sent the server (`nil` for none).
        private func play(
            _ hex: String, on transport: SessionTransport, maximumMessageSize: Int = 1 << 20
        ) async throws -> (messages: [WebSocketMessage], end: FetchError?, clientClose: Int?, socket: WebSocket) {
            let id = UUID().uuidString
            let socket = try await makeSession(transport).webSocket(
                Socket(url: try server.url("/raw?id=\(id)&hex=\(hex)")), maximumMessageSize: maximumMessageSize)
            var messages: [WebSocketMessage] = []
            var end: FetchError?
            do {
                for try await message in socket {
                    messages.append(message)
                }
            } catch let error as FetchError {
                end = error
            }
            let report = try await makeSession(transport).webSocket(Socket(url: try server.url("/report?id=\(id)")))
            var reports = report.makeAsyncIterator()
            guard case .text(let json)? = try await reports.next() else {
                throw TestServerError("no report for \(id)")
            }
            struct Report: Decodable {
                /// The client's close frame: its code and reason, `[]` for an empty one, `nil` for none.
                let report: [ReportValue]?
            }
            enum ReportValue: Decodable {
                case code(Int)
                case reason(String)
                init(from decoder: any Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let code = try? container.decode(Int.self) {  // nil: the reason, a string
                        self = .code(code)
                    } else {
                        self = .reason(try container.decode(String.self))
                    }
                }
            }
            let close = try JSONDecoder().decode(Report.self, from: Data(json.utf8)).report
            var code: Int?
            if case .code(let sent)? = close?.first {
                code = sent
            }
            return (messages, end, code, socket)
        }

        private func expectFailure(
            _ hex: String, code: Int, on transport: SessionTransport, maximumMessageSize: Int = 1 << 20,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let played = try await play(hex, on: transport, maximumMessageSize: maximumMessageSize)
            guard case .webSocketClosed(let closed, let reason, let request) = played.end?.fetchKind else {
                Issue.record(
                    "expected webSocketClosed(\(code)), got \(String(describing: played.end))",
                    sourceLocation: sourceLocation)
                return
            }
            #expect(closed == code, "\(reason)", sourceLocation: sourceLocation)
            #expect(request?.url.path == "/raw", sourceLocation: sourceLocation)
            #expect(played.clientClose == code, "the close code the client sent", sourceLocation: sourceLocation)
        }

        @Test(arguments: SessionTransport.allCases)
        func framesAtThe7BitAnd16BitLengthBoundariesArriveWhole(on transport: SessionTransport) async throws {
            let lengths = [0, 1, 125, 126, 127, 1000]
            let hex = lengths.map { Self.text(String(repeating: "a", count: $0)) }.joined() + Self.close(1000)
            let played = try await play(hex, on: transport)
            #expect(played.end == nil)
            #expect(played.messages == lengths.map { .text(String(repeating: "a", count: $0)) })
            #expect(played.socket.closeCode == .normalClosure)
        }

        /// A burst of small messages that arrive in one read: the read-ahead fills and frees room while the loop
        /// decodes, and every message must still come out (a race once left them in the decoder, unread).
        ///
        /// The limit catches a hang, not slowness: under Thread Sanitizer this test starts among the first of 600,
        /// and its 1,600 awaits share the 2-core machine's two cooperative threads with all of them (it once took
        /// over a minute there, and passes in 0.3 s alone).
        @Test(.timeLimit(.minutes(4)), arguments: SessionTransport.allCases)
        func aBurstOfMessagesInOneReadAllArrive(on transport: SessionTransport) async throws {
            // 200 messages: more than twelve times the read-ahead's 16, so it fills and frees many times a burst.
            let burst = (0..<200).map { Self.text(String($0 % 10)) }.joined() + Self.close(1000)
            for _ in 0..<4 {
                let played = try await play(burst, on: transport)
                #expect(played.end == nil)
                #expect(played.messages == (0..<200).map { .text(String($0 % 10)) })
            }
        }

        @Test(arguments: SessionTransport.allCases)
        func aFragmentedMessageWithPingsBetweenItsFramesArrivesWhole(on transport: SessionTransport) async throws {
            let hex =
                Self.text("Hel", final: false) + Self.frame(9, Array("one".utf8))
                + Self.frame(0, Array("l".utf8), final: false)
                + Self.frame(9, []) + Self.frame(0, Array("o".utf8)) + Self.frame(2, [1, 2], final: false)
                + Self.frame(0, [], final: false) + Self.frame(0, [3]) + Self.close(1000)
            let played = try await play(hex, on: transport)
            #expect(played.end == nil)
            #expect(played.messages == [.text("Hello"), .binary(Data([1, 2, 3]))])
        }

        @Test(arguments: SessionTransport.allCases)
        func invalidUTF8InOneFrameClosesWith1007(on transport: SessionTransport) async throws {
            try await expectFailure(Self.frame(1, [0x61, 0xC3, 0x28]), code: 1007, on: transport)
            // An overlong encoding and a surrogate are invalid too.
            try await expectFailure(Self.frame(1, [0xC0, 0xAF]), code: 1007, on: transport)
            try await expectFailure(Self.frame(1, [0xED, 0xA0, 0x80]), code: 1007, on: transport)
        }

        @Test(arguments: SessionTransport.allCases)
        func invalidUTF8SplitAcrossFragmentsClosesWith1007(on transport: SessionTransport) async throws {
            // "😀" is F0 9F 98 80: its first two bytes end one fragment, and the next starts with a byte that cannot
            // continue it. A valid split arrives whole.
            let valid =
                Self.frame(1, [0x61, 0xF0, 0x9F], final: false) + Self.frame(0, [0x98, 0x80]) + Self.close(1000)
            #expect(try await play(valid, on: transport).messages == [.text("a😀")])
            let invalid = Self.frame(1, [0x61, 0xF0, 0x9F], final: false) + Self.frame(0, [0x28, 0x80])
            try await expectFailure(invalid, code: 1007, on: transport)
            // Text that ends in the middle of a character.
            try await expectFailure(Self.frame(1, [0x61, 0xF0, 0x9F]), code: 1007, on: transport)
        }

        @Test(arguments: SessionTransport.allCases)
        func reservedBitsAndOpcodesCloseWith1002(on transport: SessionTransport) async throws {
            for first: UInt8 in [0xC1, 0xA1, 0x91, 0x83, 0x87, 0x8B, 0x8F] {
                try await expectFailure(Self.frame(0, Array("x".utf8), first: first), code: 1002, on: transport)
            }
        }

        @Test(arguments: SessionTransport.allCases)
        func brokenFramingClosesWith1002(on transport: SessionTransport) async throws {
            // A ping of 126 bytes, a fragmented ping, a continuation with no message, a new message inside a
            // fragmented one, and a masked frame from the server.
            try await expectFailure(Self.frame(9, Array(repeating: 0x70, count: 126)), code: 1002, on: transport)
            try await expectFailure(Self.frame(9, [], final: false), code: 1002, on: transport)
            try await expectFailure(Self.frame(0, Array("x".utf8)), code: 1002, on: transport)
            try await expectFailure(Self.text("a", final: false) + Self.text("b"), code: 1002, on: transport)
            try await expectFailure("8185" + "00000000" + "61", code: 1002, on: transport)
        }

        @Test(arguments: SessionTransport.allCases)
        func closeCodesValidInvalidAndNone(on transport: SessionTransport) async throws {
            let normal = try await play(Self.close(1000, "done"), on: transport)
            #expect(
                normal.end == nil && normal.socket.closeCode == .normalClosure && normal.socket.closeReason == "done")
            #expect(normal.clientClose == 1000, "the client echoes the server's code")

            let none = try await play(Self.close(nil), on: transport)
            #expect(none.end == nil && none.socket.closeCode == nil)

            let application = try await play(Self.close(3000, "app"), on: transport)
            if case .webSocketClosed(3000, _, _) = application.end?.fetchKind {
            } else {
                Issue.record("expected 3000 thrown, got \(String(describing: application.end))")
            }

            for invalid in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
                try await expectFailure(Self.close(invalid), code: 1002, on: transport)
            }
            // A close payload of one byte, and a reason that is not UTF-8.
            try await expectFailure(Self.frame(8, [0x03]), code: 1002, on: transport)
            try await expectFailure(Self.frame(8, [0x03, 0xE8, 0xFF]), code: 1007, on: transport)
        }

        @Test(arguments: SessionTransport.allCases)
        func aServerThatClosesWithoutACloseFrameThrows1006(on transport: SessionTransport) async throws {
            let socket = try await makeSession(transport).webSocket(Socket(url: try server.url("/drop")))
            await #expect {
                for try await _ in socket {}
            } throws: { error in
                guard case .webSocketClosed(1006, _, let request) = error.fetchKind else {
                    return false
                }
                return request?.url.path == "/drop"
            }
        }

        @Test(arguments: SessionTransport.allCases)
        func aMessageOverTheLimitClosesWith1009BeforeItsPayloadIsRead(on transport: SessionTransport) async throws {
            // The frame announces 2,000 bytes and sends 10: the client must not wait for the rest.
            let header = Self.frame(2, Array(repeating: 0, count: 2000)).prefix(8)
            try await expectFailure(
                String(header) + "0000000000000000000000", code: 1009, on: transport, maximumMessageSize: 1000)
            // Fragments that add up past the limit.
            let fragments =
                Self.frame(2, Array(repeating: 1, count: 600), final: false)
                + Self.frame(0, Array(repeating: 2, count: 600))
            try await expectFailure(fragments, code: 1009, on: transport, maximumMessageSize: 1000)
        }
    }
#endif
