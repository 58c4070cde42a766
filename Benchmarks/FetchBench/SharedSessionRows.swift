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
        }
    }
}
