import Fetch
import FetchTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `fetch-bench`: measures Fetch side by side with hand-written `URLSession` code in one run and prints one table of
/// ratios, each target marked PASS or FAIL.
///
/// ```text
/// swift run -c release fetch-bench [--quick] [--server http://127.0.0.1:8080/items-1k] [--only shared,streaming]
/// ```
///
/// Each comparison runs the two sides alternately (A B A B …) for several rounds and reports the medians.
@main
struct FetchBench {
    static func main() {
        if CommandLine.arguments.dropFirst().first == StreamMemoryChild.flag {
            exit(StreamMemoryChild.main(CommandLine.arguments.dropFirst(2)))
        }
        if CommandLine.arguments.dropFirst().first == ProfileSide.flag {
            exit(ProfileSide.main(CommandLine.arguments.dropFirst(2)))
        }
        let options = Options(CommandLine.arguments.dropFirst())
        if let problem = options.problem {
            print(problem)
            print("usage: fetch-bench [--quick] [--server http://127.0.0.1:8080/items-1k] [--only <group>,…]")
            print("groups: \(Options.allGroups.joined(separator: ", "))")
            exit(2)
        }
        var table = Table()
        let start = now()
        let server = httpServer(options: options)
        if options.runs("throughput") {
            throughputRows(into: &table, options: options, server: server)
        }
        if options.runs("shared") {
            sharedSessionRows(into: &table, options: options, server: server)
        }
        if options.runs("overhead") {
            overheadRow(into: &table, options: options)
        }
        if options.runs("parse") {
            parseRows(into: &table, options: options)
        }
        if options.runs("callback-queue") {
            callbackQueueRows(into: &table, options: options)
        }
        if options.runs("pipeline") {
            pipelineRows(into: &table, options: options, server: server)
        }
        if options.runs("download") {
            downloadRows(into: &table, options: options, server: server)
        }
        let deduplicated = options.runs("deduplication") ? deduplicationRows(into: &table, options: options) : true
        let cached = options.runs("cache") ? cacheRows(into: &table, options: options, server: server) : true
        let cachedOnDisk =
            options.runs("cache") ? diskCacheRow(into: &table, options: options, server: server) : true
        if options.runs("resume") {
            resumeRow(into: &table, options: options)
        }
        if options.runs("streaming") {
            streamingRows(into: &table, options: options)
        }
        #if os(Linux)
            if options.runs("curl") {
                curlRows(into: &table, options: options, server: server)
            }
            if options.runs("scale") {
                scaleRows(into: &table, options: options, server: server)
            }
        #endif
        if options.runs("websocket") {
            webSocketRows(into: &table, options: options)
        }
        if options.runs("observing") {
            observingRows(into: &table, options: options, server: server)
        }
        let seconds = Double(now() - start) / 1e9
        print(table.render(title: options.title, footer: String(format: "%.1f s", seconds), judged: !options.quick))
        // Timing targets are read from the table, not enforced by the exit status: on a busy machine they are noisy.
        // A performer that stops working (dedup, a cache that stores nothing) fails the run.
        guard deduplicated, cached, cachedOnDisk else {
            print("fetch-bench: deduplication or caching did not work (see the table)")
            exit(1)
        }
    }

    static func inProcessConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [InProcessBackend.self]
        configuration.urlCache = nil
        return configuration
    }

    static func serverConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 8
        return configuration
    }

    static let inProcessURL = URL(string: "http://fetch-bench.invalid/items-1k")

    /// A real HTTP server on loopback: the one named by `--server`, or else fetch-bench's own.
    struct HTTPServer {
        let name: String
        let url: URL
    }

    /// The server that the throughput targets are judged on; `nil` only when fetch-bench's own cannot start.
    static func httpServer(options: Options) -> HTTPServer? {
        if let url = options.server {
            return HTTPServer(name: "server", url: url)
        }
        do {
            return HTTPServer(name: "loopback", url: try LoopbackServer().url)
        } catch {
            print("fetch-bench: no loopback server, so only the in-process rows: \(error)")
            return nil
        }
    }

    // MARK: - 1. Session vs hand-written URLSession

    /// The in-process rows show Fetch's own cost with next to no transport under it; the targets are judged over a
    /// real HTTP connection, where users meet them.
    static func throughputRows(into table: inout Table, options: Options, server: HTTPServer?) {
        var transports: [(name: String, configuration: URLSessionConfiguration, url: URL, target: Table.Target?)] = []
        if let url = inProcessURL {
            transports.append(("in-process", inProcessConfiguration(), url, nil))
        }
        if let server {
            transports.append((server.name, serverConfiguration(), server.url, .atLeast(0.97)))
        }
        for transport in transports {
            let contenders = Contenders(configuration: transport.configuration)
            let url = transport.url
            let request = Get(url: url)
            // Warm up both sides: connections, lazy globals, caches.
            let handWritten: Side = { contenders.handWritten(url, completion: $0) }
            _ = alternatingWaves(
                waves: 6, concurrency: 8, { contenders.session.perform(request, completion: $0) }, handWritten)
            // A/A control: the hand-written code against itself shows how far apart two identical sides land on
            // this machine, that is what a ratio can resolve.
            let control = paired(rounds: options.rounds) {
                alternatingThroughput(pairs: options.requests, handWritten, handWritten)
            }
            table.value(
                "Control: hand-written vs itself, sequential, \(transport.name)", String(format: "%.0f", control.a),
                baseline: String(format: "%.0f", control.b), ratio: String(format: "%.3fx", control.ratio),
                cpu: Table.cpu(control.cpuA, control.cpuB))
            // Sequential: the two sides alternate request by request.
            let callback = paired(rounds: options.rounds) {
                alternatingThroughput(
                    pairs: options.requests, { contenders.session.perform(request, completion: $0) }, handWritten)
            }
            table.ratio(
                "Session callback, sequential, \(transport.name) (req/s)", callback, unit: "", target: transport.target)
            let async = paired(rounds: options.rounds) {
                alternatingAsyncThroughput(
                    pairs: options.requests, { try await contenders.session.perform(request) },
                    { try await contenders.handWritten(url) })
            }
            table.ratio(
                "Session async, sequential, \(transport.name) (req/s)", async, unit: "", target: transport.target)
            if transport.target == nil {
                // What a request costs Fetch over the hand-written code: the baseline's time per request, stretched
                // by the paired ratio.
                func added(_ comparison: Comparison) -> String {
                    String(format: "%.1f", 1e6 / comparison.b * (1 / comparison.ratio - 1))
                }
                table.value(
                    "Fetch's added time per request, sequential, callback / async, \(transport.name) (µs)",
                    "\(added(callback)) / \(added(async))")
            }
            // 8 concurrent: the two sides alternate wave by wave, each wave 8 requests sent together.
            let concurrency = 8
            let waves = options.requests / 4
            let concurrentCallback = paired(rounds: options.rounds) {
                alternatingWaves(
                    waves: waves, concurrency: concurrency,
                    { contenders.session.perform(request, completion: $0) }, handWritten)
            }
            table.ratio(
                "Session callback, \(concurrency) concurrent, \(transport.name) (req/s)", concurrentCallback, unit: "",
                target: transport.target)
            let concurrentAsync = paired(rounds: options.rounds) {
                alternatingAsyncWaves(
                    waves: waves, concurrency: concurrency, { try await contenders.session.perform(request) },
                    { try await contenders.handWritten(url) })
            }
            table.ratio(
                "Session async, \(concurrency) concurrent, \(transport.name) (req/s)", concurrentAsync, unit: "",
                target: transport.target)
        }
    }

    /// Fetch's own CPU work per request, apart from transport and parsing: building the `URLRequest` and reading
    /// the answer (eight header fields, as nginx sends) into a ``Response``. It bounds what Session can cost.
    static func overheadRow(into table: inout Table, options: Options) {
        guard let url = inProcessURL else {
            return
        }
        let request = Get(url: url)
        let fields = StaticFileHeaders.fields(contentLength: Payload.small.count, date: Date())
        let headers = Dictionary(fields, uniquingKeysWith: { first, _ in first })
        guard
            let answer = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            return
        }
        let perCall = median(
            (0..<options.rounds).map { _ in
                timePerCall(options.requests * 20) {
                    _ = Exchange.makeURLRequest(for: request, defaultTimeout: 60)
                    _ = Exchange.response(for: request, data: Payload.small, urlResponse: answer, error: nil)
                }
            })
        table.value("Fetch's own work per request, without transport and parse (µs)", String(format: "%.1f", perCall))
    }

    // MARK: - 2. The parse path

    static func parseRows(into table: inout Table, options: Options) {
        let decoder = JSONDecoder()
        let request = Get(url: URL(fileURLWithPath: "/items"))
        for (name, payload) in [("1 KB", Payload.small), ("100 KB", Payload.medium), ("1 MB", Payload.large)] {
            let response = Response(status: 200, data: payload, originalRequest: request)
            // Call by call, A B B A …: each parse is timed next to one of the other side's.
            let pairs = max(3, options.parseBytes / payload.count / 2)
            let timing = paired(rounds: options.rounds) {
                alternatingTimePerCall(pairs: pairs) {
                    _ = [Item].parse(response: response, errorParser: nil)
                } _: {
                    _ = try? decoder.decode([Item].self, from: payload)
                }
            }
            table.ratio(
                "Decodable parse vs bare JSONDecoder, \(name) (µs)", timing, unit: "µs", target: .atMost(1.05))
        }
        let mock = MockPerformer { _ in MockResponse(status: 200, data: Payload.small) }
        let mockRequest = Get(url: URL(fileURLWithPath: "/items"))
        let perCall = median(
            (0..<options.rounds).map { _ in
                timePerCall(options.requests * 10) {
                    mock.perform(mockRequest) { (_: Result<[Item], any Error>) in }
                }
            })
        table.value("MockPerformer round trips, 1 KB (per s)", String(format: "%.0f", 1e6 / perCall))
    }

    /// Microseconds per call of `a` and of `b`, called alternately (A B B A A B …) `pairs` times each.
    static func alternatingTimePerCall(pairs: Int, _ a: () -> Void, _ b: () -> Void) -> SideResults {
        var times = SideTimes()
        for index in 0..<(2 * pairs) {
            let isA = Alternation.isFirst(index)
            let start = Stamp.now()
            if isA {
                a()
            } else {
                b()
            }
            times.add(start.elapsed(), toA: isA)
        }
        return times.microsecondsPerCall(calls: pairs)
    }

    /// Microseconds per call of `body`, over `repetitions` calls.
    static func timePerCall(_ repetitions: Int, _ body: () -> Void) -> Double {
        let start = now()
        for _ in 0..<repetitions {
            body()
        }
        return Double(now() - start) / 1e3 / Double(repetitions)
    }

    // MARK: - 3. Time on the callback queue

    static func callbackQueueRows(into table: inout Table, options: Options) {
        var medians: [String: Double] = [:]
        for (name, path) in [("1 KB", "items-1k"), ("1 MB", "items-1m")] {
            guard let url = URL(string: "http://fetch-bench.invalid/\(path)") else {
                continue
            }
            let queue = TimingQueue()
            queue.maxConcurrentOperationCount = 1  // serial, as the main queue is
            let session = Session(
                transport: URLSessionTransport(session: URLSession(configuration: inProcessConfiguration())),
                callbackQueue: queue)
            let count = path == "items-1m" ? max(20, options.requests / 5) : options.requests * 2
            // The completion only leaves a group that nobody waits on until the end: what the queue spends is
            // Fetch's delivery, not a thread wake-up or the next request.
            let delivered = DispatchGroup()
            for _ in 0..<count {
                delivered.enter()
                session.perform(Get(url: url)) { (_: Result<[Item], any Error>) in delivered.leave() }
            }
            delivered.wait()
            let value = median(queue.microseconds)
            medians[name] = value
            table.value(
                "Callback-queue time per response, \(name) (µs)", String(format: "%.1f", value), target: "<= 20",
                passed: value <= 20)
        }
        if let small = medians["1 KB"], let large = medians["1 MB"] {
            let independent = large <= max(small * 1.5, small + 5)
            table.value(
                "Callback-queue time, 1 MB vs 1 KB", String(format: "%.2fx", large / small),
                target: "size-independent", passed: independent)
        }
    }

    // MARK: - 4. Deduplication and caching

    /// Returns whether deduplication worked.
    static func deduplicationRows(into table: inout Table, options: Options) -> Bool {
        guard let url = URL(string: "http://fetch-bench.invalid/slow") else {
            return false
        }
        let session = Session(
            transport: URLSessionTransport(session: URLSession(configuration: inProcessConfiguration())),
            callbackQueue: .init())
        var counts: [Int] = []
        for performer in [session.with(.deduplicate()) as any RequestPerforming, session] {
            let before = InProcessBackend.requests.withLock { $0 }
            let group = DispatchGroup()
            for _ in 0..<100 {
                group.enter()
                performer.perform(Get(url: url)) { (_: Result<[Item], any Error>) in group.leave() }
            }
            group.wait()
            counts.append(InProcessBackend.requests.withLock { $0 } - before)
        }
        table.value(
            "100 concurrent identical GETs → backend requests", "\(counts[0])", baseline: "\(counts[1])",
            target: "1", passed: counts[0] == 1)
        return counts[0] == 1
    }

    /// Returns whether the cache stored the response and answered from it.
    static func cacheRows(into table: inout Table, options: Options, server: HTTPServer?) -> Bool {
        let name = server.map { $0.name == "server" ? "server" : "\($0.name) server" } ?? "in-process backend"
        let configuration = server == nil ? inProcessConfiguration() : serverConfiguration()
        guard let url = server?.url ?? inProcessURL,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else {
            return false
        }
        components.path = "/cacheable"  // the same payload with Cache-Control: max-age=3600
        guard let cacheableURL = components.url else {
            return false
        }
        let session = Session(
            transport: URLSessionTransport(session: URLSession(configuration: configuration)), callbackQueue: .init())
        let responses = ResponseCache()
        let cache = session.with(.cache(responses))
        let trips = max(10, options.requests / 4)
        let timing = blocking {
            // Store the response once; every later call is a fresh hit.
            _ = try? await cache.perform(Get(url: cacheableURL)) as [Item]
            var hits: [Double] = []
            var roundTrips: [Double] = []
            var cpu: (hits: [Double], roundTrips: [Double]) = ([], [])
            for _ in 0..<options.rounds {
                var start = Stamp.now()
                for _ in 0..<options.requests {
                    _ = try? await cache.perform(Get(url: cacheableURL)) as [Item]
                }
                var elapsed = start.elapsed()
                hits.append(Double(elapsed.nanoseconds) / 1e3 / Double(options.requests))
                cpu.hits.append(elapsed.cpuMicroseconds / Double(options.requests))
                start = Stamp.now()
                for _ in 0..<trips {
                    _ = try? await session.perform(Get(url: url)) as [Item]
                }
                elapsed = start.elapsed()
                roundTrips.append(Double(elapsed.nanoseconds) / 1e3 / Double(trips))
                cpu.roundTrips.append(elapsed.cpuMicroseconds / Double(trips))
            }
            return (median(hits), median(roundTrips), Table.cpu(median(cpu.hits), median(cpu.roundTrips)))
        }
        let stored = responses.storedResponseCount == 1
        let speedup = timing.1 / timing.0
        table.value(
            "Cache fresh hit vs \(name) round trip (µs)", String(format: "%.1f", timing.0),
            baseline: String(format: "%.1f", timing.1), ratio: String(format: "%.0fx", speedup),
            target: stored ? ">= 50x" : ">= 50x (nothing was stored!)", passed: stored && speedup >= 50,
            cpu: timing.2)
        return stored
    }
}

/// A callback queue that measures how long each delivered operation runs on it.
final class TimingQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: OperationQueue is thread-safe; the only state added is `durations`, a Locked.
    private let durations = Locked([Double]())

    /// Microseconds each delivered operation ran, in order.
    var microseconds: [Double] {
        durations.withLock { $0 }
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        let durations = durations
        super.addOperation {
            let start = now()
            block()
            let elapsed = Double(now() - start) / 1e3
            durations.withLock { $0.append(elapsed) }
        }
    }
}
