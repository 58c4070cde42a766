import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - Disk cache

    /// A fresh hit read from a ``ResponseCache``'s directory against a round trip to the HTTP server, alternated
    /// request by request. The performer keeps nothing in memory (`maximumBytes: 0`), so that every hit opens and
    /// reads the file, checks its hash and decodes its metadata, as the first hit after a restart does. The store
    /// marks a file's use (its modification date) at most once a second, so these repeated hits of one file skip that
    /// `futimens`, which a first hit pays (a few µs more on Linux). Both sides ask for the bytes (`Data`): parsing
    /// them as `[Item]` would add the same 50-odd µs to each side (a value parsed from a response lives only in
    /// memory).
    ///
    /// Returns whether the hits came from disk (one file stored, one request sent).
    static func diskCacheRow(into table: inout Table, options: Options, server: HTTPServer?) -> Bool {
        let name = server.map { $0.name == "server" ? "server" : "\($0.name) server" } ?? "in-process backend"
        let measure = "Disk-cache fresh hit vs \(name) round trip (µs)"
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fetch-bench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up
        let session = Session(
            transport: URLSessionTransport(session: URLSession(configuration: configuration)), callbackQueue: .init())
        let sent = Locked(0)
        let counted = session.with(
            .observe { event in
                if event.name == .started {
                    sent.withLock { $0 += 1 }
                }
            })
        let responses: ResponseCache
        do {
            responses = try ResponseCache(directory: directory, maximumBytes: 0)
        } catch {
            table.value(measure, "no directory: \(error)", target: ">= 20x", passed: false)
            return false
        }
        let cache = counted.with(.cache(responses))
        let timing = blocking { () -> Comparison in
            // Store the response once; every later call reads it from disk.
            _ = try? await cache.perform(Get(url: cacheableURL)) as Data
            var rounds: [SideResults] = []
            for _ in 0..<options.rounds {
                var times = SideTimes()
                for index in 0..<(2 * options.requests) {
                    let isHit = Alternation.isFirst(index)
                    let start = Stamp.now()
                    if isHit {
                        _ = try? await cache.perform(Get(url: cacheableURL)) as Data
                    } else {
                        _ = try? await session.perform(Get(url: url)) as Data
                    }
                    times.add(start.elapsed(), toA: isHit)
                }
                rounds.append(times.microsecondsPerCall(calls: options.requests))
            }
            return Comparison(
                a: median(rounds.map(\.a)), b: median(rounds.map(\.b)), ratio: median(rounds.map { $0.b / $0.a }),
                cpuA: median(rounds.compactMap(\.cpuA)), cpuB: median(rounds.compactMap(\.cpuB)))
        }
        let fromDisk = responses.storedResponseCount == 1 && sent.withLock { $0 } == 1
        table.value(
            measure, String(format: "%.1f", timing.a), baseline: String(format: "%.1f", timing.b),
            ratio: String(format: "%.0fx", timing.ratio),
            target: fromDisk ? ">= 20x" : ">= 20x (not served from disk!)", passed: fromDisk && timing.ratio >= 20,
            cpu: Table.cpu(timing.cpuA, timing.cpuB))
        return fromDisk
    }
}
