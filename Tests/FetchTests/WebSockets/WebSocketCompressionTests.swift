#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    /// permessage-deflate through a `Session` on both Linux faces (each over the libcurl channel), end to end against
    /// the Python `websockets` package, which agrees to it as each test asks: echoes round-trip byte-exact at every
    /// size, both sides name the same parameters, the client compresses what it sends exactly when agreed, and a
    /// compression bomb ends in 1009.
    @Suite(.serialized, .enabled(if: Zlib.isAvailable, "needs zlib (libz.so.1)"))
    struct WebSocketCompressionTests {
        struct Socket: Request {
            let url: URL
        }

        /// How the server is asked to agree, what the client asks, and what the server must answer.
        struct Setting: Sendable, CustomTestStringConvertible {
            let name: String
            let query: String
            let compression: WebSocket.Compression
            /// The server's `Sec-WebSocket-Extensions` answer; nil for none.
            let answer: String?
            /// The faces that also echo 16 MiB, with `FETCH_HEAVY_TESTS=1` (`.ci/run`'s heavy step runs this suite
            /// so): compressed on both faces, uncompressed on one. Every socket over libcurl shares one loop thread,
            /// which masks, deflates, inflates and checks a message's bytes (slowly in a debug build, more slowly
            /// with coverage): beside the other tests, a 16 MiB echo held that thread past the keepalive test's pong
            /// timeout, which then saw a drop that was not the server's.
            var sixteenMiBOn: [SessionTransport] = []

            var testDescription: String { name }

            var compresses: Bool { answer != nil }
        }

        static let settings = [
            Setting(
                name: "websockets' defaults (context kept, windows of 2^12)", query: "", compression: .deflate,
                answer: "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12",
                sixteenMiBOn: SessionTransport.allCases),
            Setting(
                name: "no context takeover either way",
                query: "?deflate=server_no_context_takeover,client_no_context_takeover",
                compression: .deflate,
                answer: "permessage-deflate; server_no_context_takeover; client_no_context_takeover"),
            Setting(
                name: "a client window of 2^9", query: "?deflate=client_max_window_bits=9", compression: .deflate,
                answer: "permessage-deflate; client_max_window_bits=9"),
            Setting(
                name: "the client disables it", query: "", compression: .disabled, answer: nil, sixteenMiBOn: [.curl]),
            Setting(name: "the server declines", query: "?deflate=off", compression: .deflate, answer: nil),
        ]

        struct Inspection: Decodable {
            let offer: String?
            let answer: String?
        }

        struct Counts: Decodable, Equatable {
            let compressed: Int
            let frames: Int
        }

        let server: WebSocketsServer

        init() throws {
            server = try WebSocketsServer.running()
        }

        private func open(
            _ path: String, on transport: SessionTransport, compression: WebSocket.Compression = .deflate,
            maximumMessageSize: Int = WebSocket.defaultMaximumMessageSize
        ) async throws -> WebSocket {
            var configuration = WebSocket.Configuration()
            configuration.compression = compression
            configuration.maximumMessageSize = maximumMessageSize
            return try await makeSession(transport).webSocket(
                Socket(url: server.url(path)), configuration: configuration)
        }

        @Test(arguments: settings, SessionTransport.allCases)
        func echoesEverySizeByteExactWithTheParametersBothSidesAgreed(
            setting: Setting, transport: SessionTransport
        ) async throws {
            let socket = try await open("/inspect" + setting.query, on: transport, compression: setting.compression)
            var iterator = socket.makeAsyncIterator()
            guard case .text(let json) = try await iterator.next() else {
                Issue.record("no inspection from the server")
                return
            }
            let inspection = try JSONDecoder().decode(Inspection.self, from: Data(json.utf8))
            let offered = setting.compression == .deflate ? "permessage-deflate; client_max_window_bits" : nil
            #expect(inspection.offer == offered)
            #expect(inspection.answer == setting.answer)
            #expect(socket.response.headers["Sec-WebSocket-Extensions"] == setting.answer)
            var sent = 0
            let sixteenMiB = HeavyTests.areEnabled && setting.sixteenMiBOn.contains(transport)
            for length in [0, 125, 64 << 10] + (sixteenMiB ? [16 << 20] : []) {
                let (text, bytes) = Self.payloads(length)
                try await socket.send(text)
                #expect(try await iterator.next() == .text(text), "text of \(length) bytes")
                try await socket.send(bytes)
                #expect(try await iterator.next() == .binary(bytes), "binary of \(length) bytes")
                sent += 2
            }
            try await socket.send("stats?")
            guard case .text(let countsJSON) = try await iterator.next() else {
                Issue.record("no counts from the server")
                return
            }
            let counts = try JSONDecoder().decode(Counts.self, from: Data(countsJSON.utf8))
            if setting.compresses {
                // Every message the client sent came compressed, "stats?" included.
                #expect(counts == Counts(compressed: sent + 1, frames: sent + 1))
            } else {
                #expect(counts.compressed == 0)
            }
            socket.close()
            #expect(try await iterator.next() == nil)
        }

        /// JSON-like text and binary of `length` bytes, made once per length.
        static func payloads(_ length: Int) -> (text: String, binary: Data) {
            payloadCache.withLock { cache in
                if let made = cache[length] {
                    return made
                }
                let text = String(
                    String(repeating: #"{"id":12,"name":"Ada","tags":["a","b"]},"#, count: length / 40 + 1)
                        .prefix(length))
                var generator = SplitMix(seed: UInt64(length))
                var binary = Data(count: length)
                binary.withUnsafeMutableBytes { bytes in
                    for index in bytes.indices {
                        bytes[index] = UInt8(truncatingIfNeeded: generator.next() % 7)
                    }
                }
                cache[length] = (text, binary)
                return (text, binary)
            }
        }

        private static let payloadCache = Locked<[Int: (text: String, binary: Data)]>([:])

        /// 64 MiB of zeros, which `websockets` compresses to about 64 KiB, against a limit of 1 MiB.
        @Test(arguments: SessionTransport.allCases)
        func aCompressionBombEndsIn1009(on transport: SessionTransport) async throws {
            let socket = try await open("/zeros/\(64 << 20)", on: transport, maximumMessageSize: 1 << 20)
            var iterator = socket.makeAsyncIterator()
            let error = await #expect(throws: FetchError.self) { try await iterator.next() }
            guard case .webSocketClosed(let code, let reason, _) = error?.fetchKind else {
                Issue.record("expected webSocketClosed, got \(String(describing: error))")
                return
            }
            #expect(code == 1009)
            #expect(reason.contains("inflates past the limit"), "\(reason)")
        }

        @Test(arguments: SessionTransport.allCases)
        func aMessageOfExactlyTheLimitInflatesWhole(on transport: SessionTransport) async throws {
            let socket = try await open("/zeros/\(1 << 20)", on: transport, maximumMessageSize: 1 << 20)
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(Data(count: 1 << 20)))
            socket.close()
        }
    }
#endif
