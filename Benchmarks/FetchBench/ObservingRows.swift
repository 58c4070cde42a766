import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - 9. Observing

    /// What turning observation on costs a call: a session behind `.observe` (an observer that counts the events:
    /// started, the attempt's two with its metrics, finished) and `.traceContext()` (a `traceparent` with a new span on
    /// each attempt) against the same session bare, request by request, on each transport, a loopback GET of 1 KB.
    ///
    /// Each transport gives two rows: the pair's ratio of requests per second, and the cost per observed call in µs
    /// and as a share of the bare GET, from the medians' difference.
    static func observingRows(into table: inout Table, options: Options, server: HTTPServer?) {
        guard let server else {
            return
        }
        let queue = OperationQueue()
        var sessions: [(name: String, session: Session)] = [
            (
                "URLSession",
                Session(transport: URLSessionTransport(configuration: serverConfiguration()), callbackQueue: queue)
            )
        ]
        #if os(Linux)
            do {
                sessions.append(("libcurl", try Session(transport: CurlTransport(), callbackQueue: queue)))
            } catch {
                table.value("observed vs bare Session, libcurl", "libcurl unavailable: \(error)")
            }
        #endif
        let request = Get(url: server.url)
        for (name, session) in sessions {
            let events = Locked(0)
            let observed = session.with(.observe { _ in events.withLock { $0 += 1 } }, .traceContext())
            let observedSide: Side = { observed.perform(request, completion: $0) }
            let bareSide: Side = { session.perform(request, completion: $0) }
            _ = alternatingThroughput(pairs: 20, observedSide, bareSide)  // warm up: connections, lazy globals
            events.withLock { $0 = 0 }
            let comparison = paired(rounds: options.rounds) {
                alternatingThroughput(pairs: options.requests, observedSide, bareSide)
            }
            table.ratio(
                "observe (counting) + traceContext vs bare Session, \(name), sequential, \(server.name) (req/s)",
                comparison, unit: "", target: .atLeast(0.98))
            // The cost per call from the medians of each side's time per call; the share from the paired ratio.
            let costMicroseconds = 1e6 / comparison.a - 1e6 / comparison.b
            let calls = options.rounds * options.requests
            let counted = events.withLock { $0 }
            table.value(
                "  cost per observed call, \(name): µs, and share of a bare GET (\(counted / max(1, calls)) events a call)",
                String(format: "%.1f µs", costMicroseconds), baseline: String(format: "%.1f µs", 1e6 / comparison.b),
                ratio: String(format: "%.1f %%", (1 / comparison.ratio - 1) * 100), target: "< 2 %",
                passed: counted == 4 * calls ? nil : false)
        }
    }
}
