import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - 1b. The README's Session() against hand-written code on URLSession.shared

    /// The path most users take: the README's `Session()` (a ``URLSessionTransport`` over `URLSession.shared`), the
    /// same spelled out over the caller's `URLSession.shared`, and a transport of its own from `.default`, each
    /// against hand-written `dataTask` + `JSONDecoder` + the same hop on the `URLSession` a user would have used, and
    /// in the `async` form against `URLSession.data(for:)`; sequential and eight at a time.
    ///
    /// On Linux `URLSession.shared` has no delegate, so Fetch's side sends through a `URLSession` of its own made
    /// from `.shared`'s configuration (see "Platform differences"): the first two rows measure the same path there.
    static func sharedSessionRows(into table: inout Table, options: Options, server: HTTPServer?) {
        guard let server else {
            return
        }
        let url = server.url
        let request = Get(url: url)
        let target = Table.Target.atLeast(0.97)
        let faces: [(name: String, contenders: Contenders)] = [
            ("Session()", Contenders(urlSession: .shared) { Session(callbackQueue: $0) }),
            (
                "URLSessionTransport(session: .shared)",
                Contenders(urlSession: .shared) {
                    Session(transport: URLSessionTransport(session: .shared), callbackQueue: $0)
                }
            ),
            (
                "URLSessionTransport(configuration: .default)",
                Contenders(urlSession: URLSession(configuration: .default)) {
                    Session(transport: URLSessionTransport(configuration: .default), callbackQueue: $0)
                }
            ),
        ]
        let concurrency = 8
        let waves = options.requests / 4
        for (name, contenders) in faces {
            let handWritten: Side = { contenders.handWritten(url, completion: $0) }
            let fetch: Side = { contenders.session.perform(request, completion: $0) }
            let platform: AsyncSide = { try await contenders.platformAsync(url) }
            let fetchAsync: AsyncSide = { try await contenders.session.perform(request) }
            // Warm up both sides: connections, lazy globals.
            _ = alternatingWaves(waves: 6, concurrency: concurrency, fetch, handWritten)
            let sequential = paired(rounds: options.rounds) {
                alternatingThroughput(pairs: options.requests, fetch, handWritten)
            }
            table.ratio(
                "\(name) callback vs dataTask + hop, sequential, \(server.name) (req/s)", sequential, unit: "",
                target: target)
            let concurrent = paired(rounds: options.rounds) {
                alternatingWaves(waves: waves, concurrency: concurrency, fetch, handWritten)
            }
            table.ratio(
                "\(name) callback vs dataTask + hop, \(concurrency) concurrent, \(server.name) (req/s)", concurrent,
                unit: "", target: target)
            let async = paired(rounds: options.rounds) {
                alternatingAsyncThroughput(pairs: options.requests, fetchAsync, platform)
            }
            table.ratio(
                "\(name) async vs data(for:), sequential, \(server.name) (req/s)", async, unit: "", target: target)
            let concurrentAsync = paired(rounds: options.rounds) {
                alternatingAsyncWaves(waves: waves, concurrency: concurrency, fetchAsync, platform)
            }
            table.ratio(
                "\(name) async vs data(for:), \(concurrency) concurrent, \(server.name) (req/s)", concurrentAsync,
                unit: "", target: target)
            if name == "Session()" {
                widerRows(into: &table, options: options, server: server, contenders: contenders)
            }
        }
    }

    /// The README's `Session()` beyond 8 at a time, and with the 1.2 MB body: 64 calls at a time in both forms, and
    /// (on fetch-bench's own server, which serves it) the large body one and 8 at a time, each side decoding it where
    /// it lands, as the small rows do.
    private static func widerRows(
        into table: inout Table, options: Options, server: HTTPServer, contenders: Contenders
    ) {
        let target = Table.Target.atLeast(0.97)
        let url = server.url
        let request = Get(url: url)
        let waves = max(4, options.requests / 16)
        let wide = paired(rounds: max(3, options.rounds / 3)) {
            alternatingWaves(
                waves: waves, concurrency: 64, { contenders.session.perform(request, completion: $0) },
                { contenders.handWritten(url, completion: $0) })
        }
        table.ratio(
            "Session() callback vs dataTask + hop, 64 concurrent, \(server.name) (req/s)", wide, unit: "",
            target: target)
        let wideAsync = paired(rounds: max(3, options.rounds / 3)) {
            alternatingAsyncWaves(
                waves: waves, concurrency: 64, { try await contenders.session.perform(request) },
                { try await contenders.platformAsync(url) })
        }
        table.ratio(
            "Session() async vs data(for:), 64 concurrent, \(server.name) (req/s)", wideAsync, unit: "",
            target: target)
        guard server.name == "loopback", let largeURL = URL(string: "/items-1m", relativeTo: url)?.absoluteURL else {
            return
        }
        let large = Get(url: largeURL)
        let largeRounds = max(3, options.rounds / 3)
        let largeCalls = max(4, options.requests / 15)
        let sequential = paired(rounds: largeRounds) {
            alternatingThroughput(
                pairs: largeCalls, { contenders.session.perform(large, completion: $0) },
                { contenders.handWritten(largeURL, completion: $0) })
        }
        table.ratio(
            "Session() callback vs dataTask + hop, 1.2 MB JSON, sequential (req/s)", sequential, unit: "",
            target: target)
        let sequentialAsync = paired(rounds: largeRounds) {
            alternatingAsyncThroughput(
                pairs: largeCalls, { try await contenders.session.perform(large) },
                { try await contenders.platformAsync(largeURL) })
        }
        table.ratio(
            "Session() async vs data(for:), 1.2 MB JSON, sequential (req/s)", sequentialAsync, unit: "",
            target: target)
        let concurrent = paired(rounds: largeRounds) {
            alternatingWaves(
                waves: max(2, largeCalls / 4), concurrency: 8, { contenders.session.perform(large, completion: $0) },
                { contenders.handWrittenDecodingConcurrently(largeURL, completion: $0) })
        }
        table.ratio(
            "Session() callback vs dataTask + concurrent decode + hop, 1.2 MB JSON, 8 concurrent (req/s)", concurrent,
            unit: "", target: target)
        let concurrentAsync = paired(rounds: largeRounds) {
            alternatingAsyncWaves(
                waves: max(2, largeCalls / 4), concurrency: 8, { try await contenders.session.perform(large) },
                { try await contenders.platformAsync(largeURL) })
        }
        table.ratio(
            "Session() async vs data(for:), 1.2 MB JSON, 8 concurrent (req/s)", concurrentAsync, unit: "",
            target: target)
    }
}
