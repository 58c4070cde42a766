import Fetch
import FetchTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - 9. Observing

    /// What turning observation on costs a call, against the same performer bare, the sides alternating call by
    /// call: `.observe` with an observer that counts the events (started, the attempt's two with its metrics,
    /// finished), alone, with `.traceContext()` (a `traceparent` with a new span on each attempt), and, for scale,
    /// with `.requestID()`, the cheapest middleware that adds a field to each request.
    ///
    /// Over each transport, a sequential loopback GET of 1 KB: the ratio of requests per second, then the cost per
    /// observed call in µs and as a share of the bare GET, both from the paired ratio (the bare GET's time is its
    /// median's). Over a `MockPerformer`, the same stacks with no network: Fetch's own work per observed call.
    static func observingRows(into table: inout Table, options: Options, server: HTTPServer?) {
        let mock = MockPerformer { _ in MockResponse(status: 200, data: Payload.small) }
        let mockRequest = Get(url: URL(fileURLWithPath: "/items"))
        for (label, observed) in stacks(over: mock, counting: Locked(0)) {
            let timing = paired(rounds: options.rounds) {
                alternatingTimePerCall(pairs: options.requests * 10) {
                    observed.perform(mockRequest) { (_: Result<[Item], any Error>) in }
                } _: {
                    mock.perform(mockRequest) { (_: Result<[Item], any Error>) in }
                }
            }
            table.ratio("\(label) vs bare MockPerformer, in process, 1 KB (µs)", timing, unit: "µs", target: nil)
        }
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
            let bareSide: Side = { session.perform(request, completion: $0) }
            let events = Locked(0)
            for (label, observed) in stacks(over: session, counting: events) {
                let observedSide: Side = { observed.perform(request, completion: $0) }
                _ = alternatingThroughput(pairs: 20, observedSide, bareSide)  // warm up: connections, lazy globals
                events.withLock { $0 = 0 }
                let comparison = paired(rounds: options.rounds) {
                    alternatingThroughput(pairs: options.requests, observedSide, bareSide)
                }
                table.ratio(
                    "\(label) vs bare Session, \(name), sequential, \(server.name) (req/s)", comparison, unit: "",
                    target: .atLeast(0.98))
                let calls = options.rounds * options.requests
                let perCall = events.withLock { $0 } / max(1, calls)
                table.value(
                    "  cost per observed call (µs, share of a bare GET; \(perCall) events a call)",
                    // From the paired ratio, as the share is: the difference of the two sides' medians can
                    // disagree with it by a few points when the rounds' rates drift.
                    String(format: "%.1f µs", 1e6 / comparison.b * (1 / comparison.ratio - 1)),
                    baseline: String(format: "%.1f µs", 1e6 / comparison.b),
                    ratio: String(format: "%.1f %%", (1 / comparison.ratio - 1) * 100), target: "< 2 %",
                    passed: perCall == (label.hasPrefix("pass-through") || label.hasPrefix("bare") ? 0 : 4)
                        ? nil : false)
            }
            // What the observer adds to a session that has a middleware already, as an app's usually does: the
            // same observer on top of `.retry()`, against `.retry()` alone. The rows above pay, besides the events,
            // for the first middleware step (the pass-through control).
            let retrying = session.with(.retry())
            let observedRetrying = session.with(
                ObservingMiddleware.observe { _ in events.withLock { $0 += 1 } }, .retry())
            let baseSide: Side = { retrying.perform(request, completion: $0) }
            let observedSide: Side = { observedRetrying.perform(request, completion: $0) }
            _ = alternatingThroughput(pairs: 20, observedSide, baseSide)
            let comparison = paired(rounds: options.rounds) {
                alternatingThroughput(pairs: options.requests, observedSide, baseSide)
            }
            table.ratio(
                "observe + retry vs retry, \(name), sequential, \(server.name) (req/s)", comparison, unit: "",
                target: .atLeast(0.98))
            table.value(
                "  cost of the observer on a stack with a middleware (µs, share of that call)",
                String(format: "%.1f µs", 1e6 / comparison.b * (1 / comparison.ratio - 1)),
                baseline: String(format: "%.1f µs", 1e6 / comparison.b),
                ratio: String(format: "%.1f %%", (1 / comparison.ratio - 1) * 100), target: "< 2 %", passed: nil)
        }
    }

    /// The observed stacks over `performer`, named, with an observer that counts into `events`; and two controls: the
    /// bare performer against itself, which shows what the method alone reads, and a pass-through `.intercept` that
    /// observes nothing, which separates the events' cost from what any middleware step costs a bare session.
    private static func stacks(over performer: any RequestPerforming, counting events: Locked<Int>)
        -> [(String, Pipeline)]
    {
        let observe = ObservingMiddleware.observe { _ in events.withLock { $0 += 1 } }
        let passThrough = InterceptingMiddleware.intercept { request, _, next, completion in
            next(request, completion: completion)
        }
        return [
            ("bare again (A/A control: the method's own bias)", performer.with()),
            ("pass-through intercept (control, no events)", performer.with(passThrough)),
            ("observe", performer.with(observe)), ("observe + traceContext", performer.with(observe, .traceContext())),
            ("observe + requestID", performer.with(observe, .requestID())),
        ]
    }
}
