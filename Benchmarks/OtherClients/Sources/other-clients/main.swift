// other-clients: a GET and a JSONDecoder decode of the same body, N calls at a time, wave by wave in one process,
// through Fetch and through the clients its users would pick instead. Each side is at its best as its own
// documentation shows it; the sides take turns in rounds whose order rotates, so that none always follows the same
// one (a side's leftover work on shared threads lands in the wave after it).

import Alamofire
import AsyncHTTPClient
import Fetch
import Foundation
import Get
import NIOCore
import NIOFoundationCompat
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// fetch-bench's model: `/item-1` holds one, `/items-1m` 10,651 (README.md).
struct Item: Codable, Parsable {
    let id: Int
    let name: String
    let email: String
    let active: Bool
    let score: Double
    let tags: [String]
}

/// The Fetch request, as an app declares one.
struct ItemsRequest: Fetch.Request {
    let url: URL
}

struct UnexpectedStatus: Error, CustomStringConvertible {
    let status: Int
    var description: String { "the server answered \(status), not 200" }
}

// MARK: - Command line

struct Options {
    static let usage = """
        usage: other-clients [--quick] [--seconds S] [--concurrency 1,8,64,256] [--connections N] [--sides abcdef] [URL]
          a Fetch over CurlTransport    b AsyncHTTPClient    c URLSession.shared.data(for:)
          d Fetch's Session()           e Alamofire          f Get
        """

    var url = URL(string: "http://127.0.0.1:8080/item-1")
    /// Seconds of waves per side at each concurrency.
    var seconds = 3.0
    var concurrencies = [1, 8, 64, 256]
    /// Connections per host of the two clients that set it themselves (libcurl's and AsyncHTTPClient's): 8,
    /// AsyncHTTPClient's default. The four over swift-corelibs-foundation's `URLSession` keep its own.
    var connections = 8
    var sides = "abcdef"
    var quick = false

    init(_ arguments: ArraySlice<String>) throws(UsageError) {
        var arguments = arguments
        func value(of option: String) throws(UsageError) -> String {
            guard let value = arguments.popFirst() else {
                throw UsageError("\(option) needs a value")
            }
            return value
        }
        func count(_ text: Substring, of option: String) throws(UsageError) -> Int {
            guard let count = Int(text), (1...4_096).contains(count) else {
                throw UsageError("\(option) takes whole numbers from 1 to 4096, not \(text)")
            }
            return count
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--seconds":
                let text = try value(of: argument)
                guard let seconds = Double(text), seconds > 0, seconds <= 3_600 else {
                    throw UsageError("--seconds takes a number of seconds up to 3600, not \(text)")
                }
                self.seconds = seconds
            case "--concurrency":
                concurrencies = try value(of: argument).split(separator: ",").map { text throws(UsageError) in
                    try count(text, of: argument)
                }
                guard !concurrencies.isEmpty else {
                    throw UsageError("--concurrency needs at least one number")
                }
            case "--connections":
                connections = try count(Substring(try value(of: argument)), of: argument)
            case "--sides":
                sides = try value(of: argument)
                guard !sides.isEmpty, Set(sides).count == sides.count, sides.allSatisfy("abcdef".contains) else {
                    throw UsageError("--sides takes distinct letters among a b c d e f, not \(sides)")
                }
            case "-h", "--help":
                throw UsageError(nil)
            default:
                guard !argument.hasPrefix("-"), let url = URL(string: argument), url.scheme != nil, url.host != nil
                else {
                    throw UsageError("\(argument) is neither an option nor an absolute URL")
                }
                self.url = url
            }
        }
        if quick {
            seconds = min(seconds, 0.3)
        }
    }
}

struct UsageError: Error {
    let problem: String?
    init(_ problem: String?) { self.problem = problem }
}

// MARK: - Measuring

/// The process's CPU time, user and system, every thread, in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func microseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
    return microseconds(usage.ru_utime) + microseconds(usage.ru_stime)
}

/// One side: a wave of `n` calls started together, which returns how many failed.
struct Side: Sendable {
    let letter: Character
    let name: String
    let note: String
    let wave: @Sendable (Int) async -> Int
}

/// One side's waves at one concurrency.
struct Tally {
    var waves: [Double] = []  // nanoseconds
    var cpuMicroseconds = 0.0
    var calls = 0
    var failures = 0

    var totalSeconds: Double { waves.reduce(0, +) / 1e9 }
    /// Calls a second over all the side's waves.
    var rate: Double { Double(calls) / totalSeconds }
    var medianWave: Double {
        let sorted = waves.sorted()
        guard !sorted.isEmpty else {
            return .nan
        }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    var worstWave: Double { waves.max() ?? .nan }
    var cpuPerCall: Double { cpuMicroseconds / Double(max(1, calls)) }

    /// Runs one wave of `side` and counts it.
    mutating func measure(_ side: Side, concurrency: Int) async {
        let cpuStart = processCPUMicroseconds()
        let start = ContinuousClock.now
        let failed = await side.wave(concurrency)
        let elapsed = ContinuousClock.now - start
        cpuMicroseconds += processCPUMicroseconds() - cpuStart
        waves.append(Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
        calls += concurrency
        failures += failed
    }
}

/// Runs `n` calls together in a task group (one call directly) and returns how many failed.
func asyncWave(_ n: Int, _ call: @escaping @Sendable () async throws -> Void) async -> Int {
    guard n > 1 else {
        return (try? await call()) == nil ? 1 : 0
    }
    return await withTaskGroup(of: Int.self) { group in
        for _ in 0..<n {
            group.addTask { (try? await call()) == nil ? 1 : 0 }
        }
        return await group.reduce(0, +)
    }
}

/// Starts `n` calls of a callback API together and returns, once the last completion has run, how many failed.
func callbackWave(_ n: Int, _ start: @escaping (WaveCompletion) -> Void) async -> Int {
    await withCheckedContinuation { continuation in
        let completion = WaveCompletion(calls: n, continuation: continuation)
        for _ in 0..<n {
            start(completion)
        }
    }
}

/// Counts the completions of a wave of callback calls; the last one resumes the waiting task.
final class WaveCompletion: Sendable {
    private let state: Mutex<(remaining: Int, failures: Int)>
    private let continuation: CheckedContinuation<Int, Never>

    init(calls: Int, continuation: CheckedContinuation<Int, Never>) {
        state = Mutex((calls, 0))
        self.continuation = continuation
    }

    func complete(failed: Bool) {
        let failures: Int? = state.withLock { state in
            state.remaining -= 1
            state.failures += failed ? 1 : 0
            return state.remaining == 0 ? state.failures : nil
        }
        if let failures {
            continuation.resume(returning: failures)
        }
    }
}

/// The orders of one block of rounds: every rotation of the sides, then every rotation of them reversed (for three,
/// abc bca cab cba bac acb), so that each side is at each place, and after each other side, equally often.
func rotations(of count: Int) -> [[Int]] {
    let forward = Array(0..<count)
    func rotations(_ order: [Int]) -> [[Int]] {
        (0..<count).map { shift in Array(order[shift...] + order[..<shift]) }
    }
    return count == 1 ? [forward] : rotations(forward) + rotations(forward.reversed())
}

// MARK: - The sides

/// A wave of Fetch's callback form on `session`, as fetch-bench's rows call it.
func fetchWave(_ session: Fetch.Session, url: URL) -> @Sendable (Int) async -> Int {
    { n in
        await callbackWave(n) { completion in
            session.perform(ItemsRequest(url: url), as: [Item].self) { result in
                completion.complete(failed: (try? result.get()) == nil)
            }
        }
    }
}

/// The sides `options` asks for, in its order, and what shuts their clients down.
func makeSides(_ options: Options, url: URL) throws -> (sides: [Side], shutdown: @Sendable () async throws -> Void) {
    var sides: [Side] = []
    var shutdown: @Sendable () async throws -> Void = {}
    let wanted = Set(options.sides)

    if wanted.contains("a") {
        let queue = OperationQueue()
        let session = try Fetch.Session(
            transport: CurlTransport(options: CurlTransport.Options(maximumConnectionsPerHost: options.connections)),
            callbackQueue: queue)
        sides.append(
            Side(
                letter: "a", name: "Fetch over CurlTransport",
                note: "Session(transport: CurlTransport(options: .init(maximumConnectionsPerHost: "
                    + "\(options.connections))), callbackQueue: OperationQueue()), perform(_:as:completion:)",
                wave: fetchWave(session, url: url)))
    }

    if wanted.contains("b") {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = options.connections
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        shutdown = { try await client.shutdown() }
        let request = HTTPClientRequest(url: url.absoluteString)
        let decoder = JSONDecoder()
        let call: @Sendable () async throws -> Void = {
            let response = try await client.execute(request, timeout: .seconds(30))
            guard response.status == .ok else {
                throw UnexpectedStatus(status: Int(response.status.code))
            }
            _ = try decoder.decode([Item].self, from: try await response.body.collect(upTo: 64 << 20))
        }
        sides.append(
            Side(
                letter: "b", name: "AsyncHTTPClient",
                note: "HTTPClient(eventLoopGroupProvider: .singleton), \(options.connections) connections per host, "
                    + "execute(_:timeout:), body.collect(upTo:), JSONDecoder"
            ) { n in await asyncWave(n, call) })
    }

    if wanted.contains("c") {
        let decoder = JSONDecoder()
        let request = URLRequest(url: url)
        let call: @Sendable () async throws -> Void = {
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200 else {
                throw UnexpectedStatus(status: status)
            }
            _ = try decoder.decode([Item].self, from: data)
        }
        sides.append(
            Side(letter: "c", name: "URLSession", note: "URLSession.shared.data(for:), a status check, JSONDecoder") {
                n in await asyncWave(n, call)
            })
    }

    if wanted.contains("d") {
        let session = Fetch.Session(callbackQueue: OperationQueue())
        sides.append(
            Side(
                letter: "d", name: "Fetch's Session()",
                note: "Session(callbackQueue: OperationQueue()), the default transport, perform(_:as:completion:)",
                wave: fetchWave(session, url: url)))
    }

    if wanted.contains("e") {
        // The callback form: the `async` one wraps the same call in a task and a continuation.
        let session = Alamofire.Session()
        let queue = DispatchQueue(label: "other-clients.alamofire")
        sides.append(
            Side(
                letter: "e", name: "Alamofire",
                note: "Session(), request(_:).validate().responseDecodable(of:queue:) on a serial queue"
            ) { n in
                await callbackWave(n) { completion in
                    session.request(url).validate().responseDecodable(of: [Item].self, queue: queue) { response in
                        completion.complete(failed: response.error != nil)
                    }
                }
            })
    }

    if wanted.contains("f") {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        components?.percentEncodedPath = ""
        components?.query = nil
        let client = APIClient(baseURL: components?.url)
        let call: @Sendable () async throws -> Void = {
            _ = try await client.send(Get.Request<[Item]>(path: path)).value
        }
        sides.append(
            Side(letter: "f", name: "Get", note: "APIClient(baseURL:), send(Request<[Item]>(path:)).value") {
                n in await asyncWave(n, call)
            })
    }

    let ordered = options.sides.compactMap { letter in sides.first { $0.letter == letter } }
    return (ordered, shutdown)
}

// MARK: - Run

func format(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }

func run(_ options: Options) async throws {
    guard let url = options.url else {
        throw UsageError("no URL")
    }
    let (sides, shutdown) = try makeSides(options, url: url)
    let orders = rotations(of: sides.count)
    for side in sides where await side.wave(1) > 0 {
        throw UsageError("\(side.name) cannot GET and decode \(url.absoluteString)")
    }
    // Warm-up, not counted: every side's connections open.
    var warmUp = Tally()
    for concurrency in [options.concurrencies.max() ?? 64, 8, 1] {
        for order in orders.prefix(2) {
            for index in order {
                await warmUp.measure(sides[index], concurrency: concurrency)
            }
        }
    }

    var results: [(concurrency: Int, tallies: [Tally])] = []
    for concurrency in options.concurrencies {
        for order in orders.suffix(2) {
            for index in order {
                await warmUp.measure(sides[index], concurrency: concurrency)
            }
        }
        var tallies = Array(repeating: Tally(), count: sides.count)
        let minimumWaves = options.quick ? 5 : 20
        // Whole blocks, until every side has its seconds and its waves.
        while tallies.contains(where: { $0.totalSeconds < options.seconds || $0.waves.count < minimumWaves }) {
            for order in orders {
                for index in order {
                    await tallies[index].measure(sides[index], concurrency: concurrency)
                }
            }
        }
        results.append((concurrency, tallies))
    }
    try await shutdown()

    print("other-clients: GET \(url.absoluteString) and decode [Item], wave by wave in rotating order")
    for side in sides {
        print("- (\(side.letter)) \(side.name): \(side.note)")
    }
    print("")
    print("| N at a time | side | waves | calls/s | median wave (ms) | worst wave (ms) | CPU µs a call | failed |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for (concurrency, tallies) in results {
        for (side, tally) in zip(sides, tallies) {
            let cells = [
                "\(concurrency)", "(\(side.letter)) \(side.name)", "\(tally.waves.count)", format(tally.rate),
                format(tally.medianWave / 1e6, 3), format(tally.worstWave / 1e6, 3), format(tally.cpuPerCall, 1),
                "\(tally.failures)",
            ]
            print("| " + cells.joined(separator: " | ") + " |")
        }
    }
    func ratio(_ tallies: [Tally], _ numerator: Character, _ denominator: Character) -> String {
        guard let top = sides.firstIndex(where: { $0.letter == numerator }),
            let bottom = sides.firstIndex(where: { $0.letter == denominator })
        else {
            return "–"
        }
        return format(tallies[top].rate / tallies[bottom].rate, 2) + "×"
    }
    print("")
    print(
        "| N at a time | Fetch (curl) / AHC | Fetch (curl) / URLSession | AHC / URLSession | Session() / URLSession "
            + "| Alamofire / URLSession | Get / URLSession |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for (concurrency, tallies) in results {
        let pairs: [(Character, Character)] = [("a", "b"), ("a", "c"), ("b", "c"), ("d", "c"), ("e", "c"), ("f", "c")]
        print("| \(concurrency) | " + pairs.map { ratio(tallies, $0, $1) }.joined(separator: " | ") + " |")
    }
}

do {
    try await run(try Options(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
    if let problem = error.problem {
        print("other-clients: \(problem)")
    }
    print(Options.usage)
    exit(error.problem == nil ? 0 : 2)
} catch {
    print("other-clients: \(error)")
    exit(1)
}
