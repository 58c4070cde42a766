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

extension FetchBench {
    // MARK: - 5b. Downloads

    /// A 1.2 MB body downloaded to a file through three middlewares (an observer, a retry, a pass-through) against
    /// hand-written `URLSession.downloadTask` code that moves the finished file into place: what `TransferSession`
    /// did before transfers became pipeline calls, and what an app would write without Fetch; then against
    /// `URLSession.download(for:)`, one and 8 at a time. On the built-in server only (`/items-1m`).
    static func downloadRows(into table: inout Table, options: Options, server: HTTPServer?) {
        guard let server, server.name == "loopback",
            let url = URL(string: "/items-1m", relativeTo: server.url)?.absoluteURL
        else {
            return
        }
        let contenders = Contenders(configuration: serverConfiguration())
        let target = Table.Target.atLeast(0.97)
        let directory = FileManager.default.temporaryDirectory.appending(path: "fetch-bench-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            print("fetch-bench: the download row could not create \(directory.path): \(error)")
            return
        }
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let stack = contenders.session.with(.observe { _ in }, .retry(), PassThrough())
        let urlSession = contenders.urlSession
        let fetched = directory.appending(path: "fetch.json")
        let handWritten = directory.appending(path: "hand-written.json")
        let downloads = paired(rounds: options.rounds) {
            alternatingAsyncThroughput(
                pairs: max(4, options.requests / 15),
                {
                    _ = try await stack.download(Get(url: url), to: fetched).value
                    return []
                },
                {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        urlSession.downloadTask(with: url) { temporary, response, error in
                            continuation.resume(
                                with: Result {
                                    guard let temporary, (response as? HTTPURLResponse)?.statusCode == 200 else {
                                        throw error ?? URLError(.badServerResponse)
                                    }
                                    try? FileManager.default.removeItem(at: handWritten)  // nil: none there yet
                                    try FileManager.default.moveItem(at: temporary, to: handWritten)
                                })
                        }
                        .resume()
                    }
                    return []
                })
        }
        table.ratio(
            "download to a file through 3 middlewares vs downloadTask + move, 1.2 MB, sequential (downloads/s)",
            downloads, unit: "", target: target)

        // The best a user writes: the platform's own `async` download, one and 8 at a time, each file to a name of
        // its own (and removed, on both sides).
        let fetchDownload: AsyncSide = {
            let destination = directory.appending(path: "fetch-\(UUID().uuidString).json")
            _ = try await stack.download(Get(url: url), to: destination).value
            try FileManager.default.removeItem(at: destination)
            return []
        }
        let platformDownload: AsyncSide = {
            let (temporary, response) = try await urlSession.download(for: URLRequest(url: url))
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                throw URLError(.badServerResponse)
            }
            let destination = directory.appending(path: "platform-\(UUID().uuidString).json")
            try FileManager.default.moveItem(at: temporary, to: destination)
            try FileManager.default.removeItem(at: destination)
            return []
        }
        let sequential = paired(rounds: options.rounds) {
            alternatingAsyncThroughput(pairs: max(4, options.requests / 15), fetchDownload, platformDownload)
        }
        table.ratio(
            "download to a file through 3 middlewares vs URLSession.download(for:) + move, 1.2 MB, sequential (downloads/s)",
            sequential, unit: "", target: target)
        let concurrent = paired(rounds: options.rounds) {
            alternatingAsyncWaves(
                waves: max(2, options.requests / 60), concurrency: 8, fetchDownload, platformDownload)
        }
        table.ratio(
            "download to a file through 3 middlewares vs URLSession.download(for:) + move, 1.2 MB, 8 at a time (downloads/s)",
            concurrent, unit: "", target: target)
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
