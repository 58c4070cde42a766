import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - 5. The pipeline

    /// The pipeline's own rows, over a real HTTP connection: large bodies decoded in parallel, the `async` form
    /// against the platform's own `async` API, and a stack of pass-through middlewares against a bare session.
    static func pipelineRows(into table: inout Table, options: Options, server: HTTPServer?) {
        guard let server else {
            return
        }
        let contenders = Contenders(configuration: serverConfiguration())
        let url = server.url
        let request = Get(url: url)
        let target = Table.Target.atLeast(0.97)

        if server.name == "loopback", let largeURL = URL(string: "/items-1m", relativeTo: url)?.absoluteURL {
            // Both sides decode off the delegate queue, on as many threads as there are cores, then hop once to the
            // same callback queue.
            let large = Get(url: largeURL)
            let waves = max(4, options.requests / 15)
            let concurrent = paired(rounds: options.rounds) {
                alternatingWaves(
                    waves: waves, concurrency: 8, { contenders.session.perform(large, completion: $0) },
                    { contenders.handWrittenDecodingConcurrently(largeURL, completion: $0) })
            }
            table.ratio(
                "Session callback vs dataTask + concurrent decode + hop, 1.2 MB JSON, 8 concurrent (req/s)",
                concurrent, unit: "", target: target)
        }

        let platform: AsyncSide = { try await contenders.platformAsync(url) }
        let sequential = paired(rounds: options.rounds) {
            alternatingAsyncThroughput(
                pairs: options.requests, { try await contenders.session.perform(request) }, platform)
        }
        table.ratio(
            "Session async vs URLSession.data(for:) + JSONDecoder, sequential, \(server.name) (req/s)", sequential,
            unit: "", target: target)
        let concurrent = paired(rounds: options.rounds) {
            alternatingAsyncWaves(
                waves: options.requests / 4, concurrency: 8, { try await contenders.session.perform(request) },
                platform)
        }
        table.ratio(
            "Session async vs URLSession.data(for:) + JSONDecoder, 8 concurrent, \(server.name) (req/s)", concurrent,
            unit: "", target: target)

        // Five middlewares that only pass each call on, in front of the same session.
        let stack = (0..<5).reduce(contenders.session.pipeline) { pipeline, _ in pipeline.with(PassThrough()) }
        let layered = paired(rounds: options.rounds) {
            alternatingThroughput(
                pairs: options.requests, { stack.perform(request, completion: $0) },
                { contenders.session.perform(request, completion: $0) })
        }
        table.ratio(
            "5 pass-through middlewares vs bare Session, sequential, \(server.name) (req/s)", layered, unit: "",
            target: target)
    }
}

/// A middleware that passes every call on unchanged: what the pipeline itself costs per layer.
private struct PassThrough: Middleware {
    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        next(request, completion: completion)
    }
}
