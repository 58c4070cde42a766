import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The two sides of a throughput comparison, each at its best on the same configuration: Fetch's ``Session`` as an app
/// makes one (`Session(transport: URLSessionTransport(configuration:))`, which owns its `URLSession`), and the code a
/// person writes by hand with a `URLSession(configuration:)`, `dataTask` and `JSONDecoder`; or any other pair of a
/// session and the `URLSession` the hand-written side uses.
struct Contenders {
    let urlSession: URLSession
    let session: Session
    let queue: OperationQueue
    let decoder = JSONDecoder()

    init(configuration: URLSessionConfiguration) {
        self.init(urlSession: URLSession(configuration: configuration)) {
            Session(transport: URLSessionTransport(configuration: configuration), callbackQueue: $0)
        }
    }

    /// The hand-written side on `urlSession`, Fetch's the session `makeSession` makes on the callback queue.
    init(urlSession: URLSession, makeSession: (OperationQueue) -> Session) {
        queue = OperationQueue()
        queue.name = "fetch-bench.callbacks"
        self.urlSession = urlSession
        session = makeSession(queue)
    }

    /// Hand-written: a data task, a status check, `JSONDecoder`, and the result handed to the callback queue.
    func handWritten(_ url: URL, completion: @escaping @Sendable (Result<[Item], any Error>) -> Void) {
        let queue = queue
        let decoder = decoder
        urlSession.dataTask(with: URLRequest(url: url)) { data, response, error in
            let result = Self.decode(data, response, error, with: decoder)
            queue.addOperation { completion(result) }
        }.resume()
    }

    /// Hand-written for large bodies: the data task's completion hands the body to a concurrent queue, which decodes
    /// it and hands the result to the callback queue, so that several bodies decode at once.
    func handWrittenDecodingConcurrently(
        _ url: URL,
        completion: @escaping @Sendable (Result<[Item], any Error>) -> Void
    ) {
        let queue = queue
        let decoder = decoder
        urlSession.dataTask(with: URLRequest(url: url)) { data, response, error in
            DispatchQueue.global().async {
                let result = Self.decode(data, response, error, with: decoder)
                queue.addOperation { completion(result) }
            }
        }.resume()
    }

    /// The platform's own `async` API: `URLSession.data(for:)`, then `JSONDecoder` in the awaiting task.
    func platformAsync(_ url: URL) async throws -> [Item] {
        let (data, response) = try await urlSession.data(for: URLRequest(url: url))
        return try Self.decode(data, response, nil, with: decoder).get()
    }

    /// Hand-written `async`: the same, through a checked continuation.
    func handWritten(_ url: URL) async throws -> [Item] {
        let decoder = decoder
        return try await withCheckedThrowingContinuation { continuation in
            urlSession.dataTask(with: URLRequest(url: url)) { data, response, error in
                continuation.resume(with: Self.decode(data, response, error, with: decoder))
            }.resume()
        }
    }

    private static func decode(
        _ data: Data?,
        _ response: URLResponse?,
        _ error: (any Error)?,
        with decoder: JSONDecoder
    ) -> Result<[Item], any Error> {
        if let error {
            return .failure(error)
        }
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode), let data else {
            return .failure(URLError(.badServerResponse))
        }
        return Result { try decoder.decode([Item].self, from: data) }
    }
}

/// One side of a comparison in the callback form: starts a request and calls back with its result.
typealias Side = @Sendable (@escaping @Sendable (Result<[Item], any Error>) -> Void) -> Void

/// One side of a comparison in the `async` form.
typealias AsyncSide = @Sendable () async throws -> [Item]

/// Sequential requests per second of two sides measured request by request: `pairs` calls of each, alternating A B
/// B A A B …, each chained from the previous one's completion and timed from its start to its completion.
///
/// Two requests next to each other in time see the same machine, so the pair is finer than two batches one after
/// the other: a slow spell moves both sides of the ratio.
func alternatingThroughput(
    pairs: Int,
    block: Int = 1,
    _ a: @escaping Side,
    _ b: @escaping Side
) -> SideResults {
    let done = DispatchSemaphore(value: 0)
    // Only one call is in flight at a time; the lock hands the times from one completion's thread to the next.
    let times = Locked(SideTimes())
    @Sendable func call(_ index: Int) {
        guard index < 2 * pairs else {
            done.signal()
            return
        }
        let isA = Alternation.isFirst(index, block: block)
        let start = Stamp.now()
        (isA ? a : b) { result in
            let elapsed = start.elapsed()
            times.withLock { $0.add(elapsed, toA: isA, failures: result.isFailure ? 1 : 0) }
            call(index + 1)
        }
    }
    call(0)
    done.wait()
    return times.withLock { $0 }.rates(requests: pairs)
}

/// The `async` form of ``alternatingThroughput(pairs:_:_:)``.
func alternatingAsyncThroughput(
    pairs: Int,
    block: Int = 1,
    _ a: @escaping AsyncSide,
    _ b: @escaping AsyncSide
) -> SideResults {
    blocking {
        var times = SideTimes()
        for index in 0..<(2 * pairs) {
            let isA = Alternation.isFirst(index, block: block)
            let start = Stamp.now()
            let failed = await failures(of: 1, isA ? a : b)
            times.add(start.elapsed(), toA: isA, failures: failed)
        }
        return times.rates(requests: pairs)
    }
}

/// Requests per second of two sides sending `concurrency` requests at a time, in waves: a wave starts them together
/// and ends when the last has completed, and the sides alternate wave by wave (A B B A …), `waves` waves each.
func alternatingWaves(
    waves: Int,
    concurrency: Int,
    block: Int = 1,
    _ a: @escaping Side,
    _ b: @escaping Side
) -> SideResults {
    var times = SideTimes()
    for index in 0..<(2 * waves) {
        let isA = Alternation.isFirst(index, block: block)
        let side = isA ? a : b
        let wave = DispatchGroup()
        let failures = Locked(0)
        let start = Stamp.now()
        for _ in 0..<concurrency {
            wave.enter()
            side { result in
                if result.isFailure {
                    failures.withLock { $0 += 1 }
                }
                wave.leave()
            }
        }
        wave.wait()
        times.add(start.elapsed(), toA: isA, failures: failures.withLock { $0 })
    }
    return times.rates(requests: waves * concurrency)
}

/// The `async` form of ``alternatingWaves(waves:concurrency:_:_:)``: each wave is a task group.
func alternatingAsyncWaves(
    waves: Int,
    concurrency: Int,
    block: Int = 1,
    _ a: @escaping AsyncSide,
    _ b: @escaping AsyncSide
) -> SideResults {
    blocking {
        var times = SideTimes()
        for index in 0..<(2 * waves) {
            let isA = Alternation.isFirst(index, block: block)
            let start = Stamp.now()
            let failed = await failures(of: concurrency, isA ? a : b)
            times.add(start.elapsed(), toA: isA, failures: failed)
        }
        return times.rates(requests: waves * concurrency)
    }
}

/// Runs `count` calls of `side` together and returns how many failed; one call runs directly, without a task group.
private func failures(of count: Int, _ side: @escaping AsyncSide) async -> Int {
    guard count > 1 else {
        do {
            _ = try await side()
            return 0
        } catch {
            return 1
        }
    }
    return await withTaskGroup(of: Int.self) { group in
        for _ in 0..<count {
            group.addTask { await failures(of: 1, side) }
        }
        return await group.reduce(0, +)
    }
}

/// Which side goes at each step of an alternation: A B B A A B B A …, so that each side follows the other as often
/// as itself.
///
/// Sides built on different stacks (libcurl driven directly against corelibs' `URLSession`) take turns by blocks of
/// requests or waves instead: the work a `URLSession` does after its completion (its own libcurl thread finishing
/// the transfer) would otherwise land in the next request of the other side, on these two cores, and make a fast side
/// pay for a slow one. In blocks, each side pays for its own, as it does when it runs alone; the blocks are short
/// (a few milliseconds) so both sides still see the same machine.
enum Alternation {
    /// Whether step `index` is side A's, the sides taking turns by `block` steps at a time (A B B A … for 1).
    static func isFirst(_ index: Int, block: Int = 1) -> Bool {
        let turn = index / max(1, block)
        return (turn + turn / 2) % 2 == 0
    }
}

/// The nanoseconds and CPU time each side of an alternation has spent, and how many of its requests failed.
struct SideTimes {
    private var a: UInt64 = 0
    private var b: UInt64 = 0
    /// The process's CPU time in microseconds over each side's steps.
    private var cpuA = 0.0
    private var cpuB = 0.0
    /// How many steps (requests or waves) each side has taken: equal in turns of one, nearly so in blocks.
    private var aSteps = 0
    private var bSteps = 0
    private var failures = 0

    /// Adds a step's time (from ``Stamp/elapsed()``) to side A's or to side B's, and `failures` failed requests.
    mutating func add(
        _ elapsed: (nanoseconds: UInt64, cpuMicroseconds: Double), toA isA: Bool, failures: Int = 0
    ) {
        if isA {
            a += elapsed.nanoseconds
            cpuA += elapsed.cpuMicroseconds
            aSteps += 1
        } else {
            b += elapsed.nanoseconds
            cpuB += elapsed.cpuMicroseconds
            bSteps += 1
        }
        self.failures += failures
    }

    /// Calls per second of each side, the two having made `2 * requests` calls between them, and the CPU time per
    /// call of each.
    func rates(requests: Int) -> SideResults {
        if failures > 0 {
            print("fetch-bench: \(failures) of \(2 * requests) requests failed")
        }
        let (callsOfA, callsOfB) = calls(2 * requests)
        return SideResults(
            a: callsOfA / (Double(a) / 1e9), b: callsOfB / (Double(b) / 1e9), cpuA: cpuA / callsOfA,
            cpuB: cpuB / callsOfB)
    }

    /// Microseconds per call of each side, the two having made `2 * calls` calls between them, and the CPU time per
    /// call of each.
    func microsecondsPerCall(calls total: Int) -> SideResults {
        let (callsOfA, callsOfB) = calls(2 * total)
        return SideResults(
            a: Double(a) / 1e3 / callsOfA, b: Double(b) / 1e3 / callsOfB, cpuA: cpuA / callsOfA, cpuB: cpuB / callsOfB)
    }

    /// `total` calls shared between the sides by the steps each took.
    private func calls(_ total: Int) -> (a: Double, b: Double) {
        let steps = Double(max(1, aSteps + bSteps))
        return (max(1, Double(total) * Double(aSteps) / steps), max(1, Double(total) * Double(bSteps) / steps))
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self {
            return true
        }
        return false
    }
}
