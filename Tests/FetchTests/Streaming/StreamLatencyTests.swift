import Fetch
import FetchTesting
import Foundation
import Testing

/// How soon an event reaches the consumer after the server wrote it.
///
/// Measured in a process of its own (see ``ChildSuiteRun``): in the full suite, tests running in parallel can hold
/// Swift's cooperative threads for a second at a time, and the consumer's task would wait for a thread, not for Fetch.
@Suite struct StreamLatencyTests {
    static let childVariable = "FETCH_MEASURE_LATENCY"

    struct Tick: Decodable {
        let n: Int
        let sent: Double
    }

    @Test(.enabled(if: ChildSuiteRun.isAvailable, "needs /proc/self/exe to run the measuring process"))
    func eventsArriveWithin50MillisecondsOfBeingWritten() async throws {
        if ChildSuiteRun.isChild(Self.childVariable) {
            try await measure()
        } else {
            let output = try await ChildSuiteRun.run(
                suite: "StreamLatencyTests", variable: Self.childVariable, timeout: .seconds(60))
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("latencies") }) {
                print(line)
            }
        }
    }

    func measure() async throws {
        let server = try TestServer.running()
        let session = makeSession()
        var latencies: [Double] = []
        // The server writes an event every 100 ms, with the time it wrote it.
        let request = TestRequest(server.url("/stream/ticks?count=10&interval=100"))
        for try await event in session.events(request, reconnectPolicy: .never) {
            let received = Date().timeIntervalSince1970
            let tick = try event.decode(Tick.self)
            #expect(tick.n == latencies.count)
            #expect(event.id == String(tick.n))
            latencies.append(received - tick.sent)
        }
        print("latencies in ms: \(latencies.map { String(format: "%.1f", $0 * 1000) })")
        #expect(latencies.count == 10)
        let worst = try #require(latencies.max())
        #expect(worst < 0.05, "latencies in ms: \(latencies.map { Int($0 * 1000) })")
    }
}
