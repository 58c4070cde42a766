import Fetch
import FetchTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `fetch-bench --profile <side> <concurrency> <calls> <url>`: one side of the README's `Session()` rows alone, for a
/// profiler (`valgrind --tool=callgrind`), which counts instructions and so is not moved by the machine's load.
///
/// It sends `calls` GETs of `url` in waves of `concurrency`, after a warm-up of two waves, and prints nothing but
/// failures. Run it twice with different `calls` and divide the difference of the instruction counts by the
/// difference of the calls: what is left is one call's cost, start-up and warm-up taken away.
///
/// The sides: `fetch` (`Session()`, callback form), `fetch-async` (its `async` form), `hand` (`dataTask` +
/// `JSONDecoder` + the same hop, on `URLSession.shared`), `hand-own` (the same on a `URLSession` configured as the one
/// `Session()` makes on Linux: no cookie storage, no `URLCache`), `platform` (`URLSession.shared.data(for:)` + `JSONDecoder`);
/// for downloads, with the URL `loopback` (fetch-bench's own server, `/items-1m`): `download` (through an observer
/// and a retry), `download-bare`, `stream` (`Session.stream` read to its end) and `platform-download`
/// (`URLSession.shared.download(for:)` + move). Over a `MockPerformer` (the URL is not used): `mock`, `mock-pass`
/// (a pass-through `.intercept`), `mock-observe` (`.observe`) and `mock-trace` (`.observe` and `.traceContext()`).
/// `bare-curl` is the scale rows' bare libcurl multi loop. Over `Session(transport: CurlTransport())`: `curl`, `curl-pass` (a pass-through
/// `.intercept`), `curl-observe`, `curl-requestid` and `curl-trace` (with `.observe`, then `.requestID()` or
/// `.traceContext()`), `curl-retry` (`.retry()`), best with `loopback:/item-1`. `FETCH_BENCH_TIME=1` prints
/// the wall time per call.
enum ProfileSide {
    static let flag = "--profile"

    static func main(_ arguments: ArraySlice<String>) -> Int32 {
        let arguments = Array(arguments)
        guard arguments.count == 4, let concurrency = Int(arguments[1]), concurrency > 0,
            let calls = Int(arguments[2]), calls > 0, var given = URL(string: arguments[3])
        else {
            print("usage: fetch-bench \(flag) <side> <concurrency> <calls> <url, or loopback>")
            return 2
        }
        var server: LoopbackServer?
        if arguments[3].hasPrefix("loopback") {
            // `loopback` serves `/items-1m`; `loopback:/item-1` another of its paths.
            let path = arguments[3].split(separator: ":", maxSplits: 1).dropFirst().first.map(String.init)
            do {
                let loopback = try LoopbackServer()
                server = loopback
                given = loopback.url.deletingLastPathComponent().appendingPathComponent(path ?? "items-1m")
            } catch {
                print("fetch-bench: no loopback server: \(error)")
                return 1
            }
        }
        defer { withExtendedLifetime(server) {} }
        let url = given
        let contenders = Contenders(urlSession: .shared) { Session(callbackQueue: $0) }
        let request = Get(url: url)
        let directory = FileManager.default.temporaryDirectory.appending(path: "fetch-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // nil: best-effort clean-up of a temp dir
        let side: AsyncSide
        switch arguments[0] {
        case "download", "download-bare":
            let stack =
                arguments[0] == "download"
                ? contenders.session.with(.observe { _ in }, .retry()) : contenders.session.pipeline
            side = {
                let destination = directory.appending(path: "fetch-\(UUID().uuidString).json")
                _ = try await stack.download(Get(url: url), to: destination).value
                try FileManager.default.removeItem(at: destination)
                return []
            }
        case "stream":
            side = {
                for try await _ in try await contenders.session.stream(Get(url: url)) {}
                return []
            }
        case "row-download":
            // The download rows' own sides: an ephemeral configuration with no cache, through three middlewares.
            let row = Contenders(configuration: FetchBench.serverConfiguration())
            let stack = row.session.with(
                .observe { _ in }, .retry(),
                .intercept { request, _, next, completion in next(request, completion: completion) })
            side = {
                let destination = directory.appending(path: "fetch-\(UUID().uuidString).json")
                _ = try await stack.download(Get(url: url), to: destination).value
                try FileManager.default.removeItem(at: destination)
                return []
            }
        case "row-platform-download":
            let urlSession = URLSession(configuration: FetchBench.serverConfiguration())
            side = {
                let (temporary, _) = try await urlSession.download(for: URLRequest(url: url))
                let destination = directory.appending(path: "platform-\(UUID().uuidString).json")
                try FileManager.default.moveItem(at: temporary, to: destination)
                try FileManager.default.removeItem(at: destination)
                return []
            }
        case "platform-download":
            side = {
                let (temporary, _) = try await URLSession.shared.download(for: URLRequest(url: url))
                let destination = directory.appending(path: "platform-\(UUID().uuidString).json")
                try FileManager.default.moveItem(at: temporary, to: destination)
                try FileManager.default.removeItem(at: destination)
                return []
            }
        case "fetch":
            side = callbackSide { contenders.session.perform(request, completion: $0) }
        case "fetch-async":
            side = { try await contenders.session.perform(request) }
        case "hand":
            side = callbackSide { contenders.handWritten(url, completion: $0) }
        case "hand-own":
            // What `Session()` sends through on Linux: a `URLSession` of its own from `.shared`'s configuration,
            // without cookie storage or `URLCache`; here with completion handlers and the default delegate queue.
            let configuration = URLSessionConfiguration.default
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCache = nil
            let own = Contenders(urlSession: URLSession(configuration: configuration)) { Session(callbackQueue: $0) }
            side = callbackSide { own.handWritten(url, completion: $0) }
        case "platform":
            side = { try await contenders.platformAsync(url) }
        #if os(Linux)
            case "bare-curl":
                // The scale rows' limit: libcurl's multi interface driven directly, with the same decode.
                let bare: BareCurlLoop
                do {
                    bare = try BareCurlLoop(queue: OperationQueue())
                } catch {
                    print("fetch-bench: libcurl unavailable: \(error)")
                    return 1
                }
                side = callbackSide { bare.get(url, completion: $0) }
            case "curl", "curl-pass", "curl-observe", "curl-requestid", "curl-trace", "curl-retry":
                // The observing rows' stacks over `Session(transport: CurlTransport())`, callback form.
                let curl: Session
                do {
                    curl = try Session(transport: CurlTransport(), callbackQueue: OperationQueue())
                } catch {
                    print("fetch-bench: libcurl unavailable: \(error)")
                    return 1
                }
                let observe = ObservingMiddleware.observe { _ in }
                let stacks: [String: any RequestPerforming] = [
                    "curl": curl, "curl-observe": curl.with(observe),
                    "curl-pass": curl.with(
                        .intercept { request, _, next, completion in next(request, completion: completion) }),
                    "curl-requestid": curl.with(observe, .requestID()),
                    "curl-trace": curl.with(observe, .traceContext()), "curl-retry": curl.with(.retry()),
                ]
                let stack = stacks[arguments[0]] ?? curl
                side = callbackSide { stack.perform(request, completion: $0) }
        #endif
        case "mock", "mock-pass", "mock-observe", "mock-trace":
            // The observing rows' stacks over a `MockPerformer` answering 16 bytes read as `Data`: Fetch's own
            // work per call with no network and almost no parsing (the URL is not used).
            let mock = MockPerformer { _ in MockResponse(status: 200, data: Data(count: 16)) }
            let observe = ObservingMiddleware.observe { _ in }
            let stacks: [String: any RequestPerforming] = [
                "mock": mock,
                "mock-pass": mock.with(
                    .intercept { request, _, next, completion in next(request, completion: completion) }),
                "mock-observe": mock.with(observe), "mock-trace": mock.with(observe, .traceContext()),
            ]
            let stack = stacks[arguments[0]] ?? mock
            side = callbackSide { completion in
                stack.perform(request) { (result: Result<Data, any Error>) in
                    completion(result.map { _ in [] })
                }
            }
        default:
            print("fetch-bench: unknown side \(arguments[0])")
            return 2
        }
        let waves = max(1, calls / concurrency)
        let start = now()
        let failed = blocking {
            var failed = 0
            for _ in 0..<(2 + waves) {
                failed += await withTaskGroup(of: Int.self) { group in
                    for _ in 0..<concurrency {
                        group.addTask {
                            do {
                                _ = try await side()
                                return 0
                            } catch {
                                return 1
                            }
                        }
                    }
                    return await group.reduce(0, +)
                }
            }
            return failed
        }
        if ProcessInfo.processInfo.environment["FETCH_BENCH_TIME"] != nil {
            print(String(format: "%.1f µs per call", Double(now() - start) / 1e3 / Double((2 + waves) * concurrency)))
        }
        if failed > 0 {
            print("fetch-bench: \(failed) calls failed")
            return 1
        }
        return 0
    }

    /// A callback side as an `async` one, so that both forms run in the same waves.
    private static func callbackSide(_ side: @escaping Side) -> AsyncSide {
        {
            try await withCheckedThrowingContinuation { continuation in
                side { continuation.resume(with: $0) }
            }
        }
    }
}
