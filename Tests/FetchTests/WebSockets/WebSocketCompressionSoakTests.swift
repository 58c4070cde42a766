#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    /// 100,000 compressed messages echoed through one connection in flat memory, on each Linux face: the zlib
    /// streams of both directions live as long as the connection, so a leak per message (of a deflater's output, an
    /// inflater's scratch, a window) would show. Measured in a process of its own (``ChildSuiteRun``); heavy:
    /// `.ci/run` runs it in its soak step.
    @Suite(.enabled(if: Zlib.isAvailable, "needs zlib (libz.so.1)")) struct WebSocketCompressionSoakTests {
        static let childVariable = "FETCH_MEASURE_WEBSOCKET_COMPRESSION_MEMORY"

        struct Echo: Request {
            let url: URL
        }

        struct Inspection: Decodable {
            let answer: String?
        }

        @Test(
            .enabled(if: HeavyTests.areEnabled, HeavyTests.reason),
            .enabled(if: ChildSuiteRun.isAvailable, "needs /proc/self/status and /proc/self/exe (Linux)"),
            .disabled(if: ThreadSanitizer.isActive, "its memory bound measures Thread Sanitizer's shadow memory")
        )
        func aHundredThousandCompressedMessagesEchoInFlatMemoryOnEveryTransport() async throws {
            guard ChildSuiteRun.isChild(Self.childVariable) else {
                let output = try await ChildSuiteRun.run(
                    suite: "WebSocketCompressionSoakTests", variable: Self.childVariable, timeout: .seconds(600))
                for line in output.split(separator: "\n") where line.hasPrefix("COMPRESSION-SOAK") {
                    print(line)  // the memory figures, for the log
                }
                return
            }
            let server = try WebSocketsServer.running()
            for transport in SessionTransport.allCases {
                let socket = try await makeSession(transport).webSocket(Echo(url: server.url("/inspect")))
                var iterator = socket.makeAsyncIterator()
                guard case .text(let json) = try await iterator.next() else {
                    Issue.record("no inspection from the server on \(transport)")
                    return
                }
                let answer = try JSONDecoder().decode(Inspection.self, from: Data(json.utf8)).answer
                #expect(answer?.hasPrefix("permessage-deflate") == true, "not compressed on \(transport)")
                var baseline = 0
                var peak = 0
                for index in 0..<100_000 {
                    let payload =
                        #"{"id":\#(index),"user":"ada","text":"message \#(index % 97) of the day","#
                        + #""body":"\#(String(repeating: "lorem ipsum ", count: 11 + index % 3))"}"#
                    try await socket.send(payload)
                    guard try await iterator.next() == .text(payload) else {
                        Issue.record("message \(index) did not come back as it was sent on \(transport)")
                        return
                    }
                    if index == 5_000 {
                        baseline = try #require(TransferMemoryTests.residentBytes())
                    } else if index > 5_000, index.isMultiple(of: 5_000) {
                        peak = max(peak, TransferMemoryTests.residentBytes() ?? 0)
                    }
                }
                socket.close()
                #expect(try await iterator.next() == nil)
                print("COMPRESSION-SOAK \(transport) baseline \(baseline) peak \(peak) growth \(peak - baseline)")
                // 95,000 messages of about 200 bytes are 19 MB each way: a leak of one message each (or of a zlib
                // stream, 256 KiB, now and then) would pass 8 MiB.
                #expect(peak - baseline < 8 << 20, "resident memory grew by \(peak - baseline) bytes on \(transport)")
            }
        }
    }
#endif
