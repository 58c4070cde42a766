import Fetch
import Foundation
import Testing

/// 100,000 messages echoed through one connection in flat memory, on each transport: measured in a process of its
/// own (``ChildSuiteRun``), since the tests beside it in the full suite allocate too. Heavy: `.ci/run` runs it in its
/// soak step.
@Suite struct WebSocketEchoSoakTests {
    static let childVariable = "FETCH_MEASURE_WEBSOCKET_MEMORY"

    struct Echo: Request {
        let url: URL
    }

    @Test(
        .enabled(if: HeavyTests.areEnabled, HeavyTests.reason),
        .enabled(if: ChildSuiteRun.isAvailable, "needs /proc/self/status and /proc/self/exe (Linux)"),
        .disabled(if: ThreadSanitizer.isActive, "its memory bound measures Thread Sanitizer's shadow memory")
    )
    func aHundredThousandMessagesEchoInFlatMemoryOnEveryTransport() async throws {
        guard ChildSuiteRun.isChild(Self.childVariable) else {
            try await ChildSuiteRun.run(
                suite: "WebSocketEchoSoakTests", variable: Self.childVariable, timeout: .seconds(600))
            return
        }
        let server = try WebSocketsServer.running()
        for transport in SessionTransport.allCases {
            let socket = try await makeSession(transport).webSocket(Echo(url: server.url("/echo")))
            var iterator = socket.makeAsyncIterator()
            let payload = String(repeating: "x", count: 200)
            var baseline = 0
            var peak = 0
            for index in 0..<100_000 {
                try await socket.send(payload)
                guard try await iterator.next() == .text(payload) else {
                    Issue.record("message \(index) did not come back as it was sent on \(transport)")
                    return
                }
                if index == 5_000 {
                    // After the warm-up: buffers, the runtime's and Foundation's caches.
                    baseline = try #require(TransferMemoryTests.residentBytes())
                } else if index > 5_000, index.isMultiple(of: 5_000) {
                    peak = max(peak, TransferMemoryTests.residentBytes() ?? 0)
                }
            }
            socket.close()
            #expect(try await iterator.next() == nil)
            // 95,000 messages of 200 bytes are 19 MB each way: a leak of one message each would pass 19 MB.
            #expect(peak - baseline < 8 << 20, "resident memory grew by \(peak - baseline) bytes on \(transport)")
        }
    }
}
