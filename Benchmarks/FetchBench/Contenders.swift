import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The two sides of a throughput comparison over the same `URLSession`: Fetch's ``Session`` and the code a person
/// writes by hand with `URLSession.dataTask` and `JSONDecoder`.
struct Contenders {
    let urlSession: URLSession
    let session: Session
    let queue: OperationQueue
    let decoder = JSONDecoder()

    init(configuration: URLSessionConfiguration) {
        queue = OperationQueue()
        queue.name = "fetch-bench.callbacks"
        urlSession = URLSession(configuration: configuration)
        session = Session(session: urlSession, callbackQueue: queue)
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

/// Sequential requests per second of two sides measured request by request: `pairs` calls of each, alternating A B
/// B A A B …, each chained from the previous one's completion and timed from its start to its completion.
///
/// Two requests next to each other in time see the same machine, so the pair is finer than two batches one after
/// the other: a slow spell moves both sides of the ratio.
func alternatingThroughput(
    pairs: Int,
    _ a: @escaping @Sendable (@escaping @Sendable (Result<[Item], any Error>) -> Void) -> Void,
    _ b: @escaping @Sendable (@escaping @Sendable (Result<[Item], any Error>) -> Void) -> Void
) -> (a: Double, b: Double) {
    let done = DispatchSemaphore(value: 0)
    // Nanoseconds spent by each side, and failures; only one call is in flight at a time.
    let totals = Locked((a: UInt64(0), b: UInt64(0), failures: 0))
    @Sendable func call(_ index: Int) {
        guard index < 2 * pairs else {
            done.signal()
            return
        }
        let isA = Alternation.isFirst(index)
        let start = now()
        (isA ? a : b) { result in
            let elapsed = now() - start
            totals.withLock { totals in
                if isA {
                    totals.a += elapsed
                } else {
                    totals.b += elapsed
                }
                if case .failure = result {
                    totals.failures += 1
                }
            }
            call(index + 1)
        }
    }
    call(0)
    done.wait()
    return rates(totals.withLock { $0 }, requests: pairs)
}

/// The `async` form of ``alternatingThroughput(pairs:_:_:)``.
func alternatingAsyncThroughput(
    pairs: Int,
    _ a: @escaping @Sendable () async throws -> [Item],
    _ b: @escaping @Sendable () async throws -> [Item]
) -> (a: Double, b: Double) {
    blocking {
        var totals = (a: UInt64(0), b: UInt64(0), failures: 0)
        for index in 0..<(2 * pairs) {
            let isA = Alternation.isFirst(index)
            let start = now()
            do {
                _ = try await (isA ? a : b)()
            } catch {
                totals.failures += 1
            }
            let elapsed = now() - start
            if isA {
                totals.a += elapsed
            } else {
                totals.b += elapsed
            }
        }
        return rates(totals, requests: pairs)
    }
}

/// Requests per second of two sides sending `concurrency` requests at a time, in waves: a wave starts them together
/// and ends when the last has completed, and the sides alternate wave by wave (A B B A …), `waves` waves each.
func alternatingWaves(
    waves: Int,
    concurrency: Int,
    _ a: @escaping @Sendable (@escaping @Sendable (Result<[Item], any Error>) -> Void) -> Void,
    _ b: @escaping @Sendable (@escaping @Sendable (Result<[Item], any Error>) -> Void) -> Void
) -> (a: Double, b: Double) {
    var totals = (a: UInt64(0), b: UInt64(0), failures: 0)
    let failures = Locked(0)
    for index in 0..<(2 * waves) {
        let isA = Alternation.isFirst(index)
        let side = isA ? a : b
        let wave = DispatchGroup()
        let start = now()
        for _ in 0..<concurrency {
            wave.enter()
            side { result in
                if case .failure = result {
                    failures.withLock { $0 += 1 }
                }
                wave.leave()
            }
        }
        wave.wait()
        let elapsed = now() - start
        if isA {
            totals.a += elapsed
        } else {
            totals.b += elapsed
        }
    }
    totals.failures = failures.withLock { $0 }
    return rates(totals, requests: waves * concurrency)
}

/// The `async` form of ``alternatingWaves(waves:concurrency:_:_:)``: each wave is a task group.
func alternatingAsyncWaves(
    waves: Int,
    concurrency: Int,
    _ a: @escaping @Sendable () async throws -> [Item],
    _ b: @escaping @Sendable () async throws -> [Item]
) -> (a: Double, b: Double) {
    blocking {
        var totals = (a: UInt64(0), b: UInt64(0), failures: 0)
        for index in 0..<(2 * waves) {
            let isA = Alternation.isFirst(index)
            let side = isA ? a : b
            let start = now()
            totals.failures += await withTaskGroup(of: Int.self) { group in
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
            let elapsed = now() - start
            if isA {
                totals.a += elapsed
            } else {
                totals.b += elapsed
            }
        }
        return rates(totals, requests: waves * concurrency)
    }
}

/// Which side goes at each step of an alternation: A B B A A B B A …, so that each side follows the other as often
/// as itself.
enum Alternation {
    static func isFirst(_ index: Int) -> Bool {
        (index + index / 2) % 2 == 0
    }
}

/// Requests per second of each side from the nanoseconds each spent on its `requests` requests.
private func rates(_ totals: (a: UInt64, b: UInt64, failures: Int), requests: Int) -> (a: Double, b: Double) {
    if totals.failures > 0 {
        print("fetch-bench: \(totals.failures) of \(2 * requests) requests failed")
    }
    return (Double(requests) / (Double(totals.a) / 1e9), Double(requests) / (Double(totals.b) / 1e9))
}
