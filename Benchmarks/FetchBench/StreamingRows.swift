import Fetch
import Foundation
import SpawnSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - 6. Streamed bodies

    /// A large body read as it arrives: `Session.stream(_:)` against a hand-written `URLSessionDataDelegate` that
    /// counts the bytes, over the same loopback server, alternating run by run; then the memory the process grows by
    /// while a consumer ten times slower than the network reads the same body.
    static func streamingRows(into table: inout Table, options: Options) {
        let size = options.streamBytes
        let megabytes = size / 1_000_000
        let throughputMeasure = "Session.stream vs URLSessionDataDelegate counting bytes, \(megabytes) MB (MB/s)"
        let memoryMeasure = "Memory growth streaming \(megabytes) MB to a consumer 10x slower than the network (MB)"
        let server: DroppingServer
        do {
            // Never dropped: a plain body of `size` bytes with a Content-Length, one request per connection.
            server = try DroppingServer(size: size, dropEvery: size)
        } catch {
            table.value(throughputMeasure, "no server: \(error)", target: ">= 0.90x", passed: false)
            return
        }
        let session = Session(
            transport: URLSessionTransport(configuration: serverConfiguration()), callbackQueue: OperationQueue())
        let counter = ByteCountingDelegate(configuration: serverConfiguration(), inline: false)
        let request = Get(url: server.url)

        // Warm up both sides once.
        _ = streamedBytes(session, request)
        _ = counter.count(server.url)
        // A/A control: the hand-written delegate against itself shows what this machine resolves.
        let control = alternatingRuns(rounds: options.streamRounds, size: size) {
            counter.count(server.url)
        } _: {
            counter.count(server.url)
        }
        table.value(
            "Control: URLSessionDataDelegate vs itself, \(megabytes) MB (MB/s)", String(format: "%.0f", control.a),
            baseline: String(format: "%.0f", control.b), ratio: String(format: "%.3fx", control.ratio),
            cpu: Table.cpu(control.cpuA, control.cpuB))
        let throughput = alternatingRuns(rounds: options.streamRounds, size: size) {
            streamedBytes(session, request)
        } _: {
            counter.count(server.url)
        }
        table.ratio(throughputMeasure, throughput, unit: "", target: .atLeast(0.90))
        // The same delegate at its best on swift-corelibs-foundation: called inline on libcurl's queue, as Fetch's
        // streaming session is, instead of through an OperationQueue.
        #if canImport(FoundationNetworking)
            let inline = ByteCountingDelegate(configuration: serverConfiguration(), inline: true)
            _ = inline.count(server.url)
            let inlineThroughput = alternatingRuns(rounds: options.streamRounds, size: size) {
                streamedBytes(session, request)
            } _: {
                inline.count(server.url)
            }
            table.ratio(
                "Session.stream vs the same delegate called inline on libcurl's queue, \(megabytes) MB (MB/s)",
                inlineThroughput, unit: "", target: .atLeast(0.90))
        #endif

        guard ResidentMemory.isAvailable else {
            table.value(memoryMeasure, "n/a: needs /proc/self/status and /proc/self/clear_refs (Linux)")
            return
        }
        // Ten times slower than the hand-written side read the same body from the same server. Measured in a
        // process of its own, so that what this one allocated and freed for the rows before cannot hide growth.
        let consumerRate = max(throughput.b, 1) / 10 * 1e6
        let seconds = Double(size) / consumerRate
        switch StreamMemoryChild.run(url: server.url, bytes: size, rate: consumerRate, timeout: seconds * 3 + 30) {
        case .success(let growth):
            let megabytes = Double(growth) / 1e6
            table.value(
                memoryMeasure, String(format: "%.1f", megabytes),
                baseline: String(format: "consumer %.0f MB/s", consumerRate / 1e6), target: "<= 32",
                passed: megabytes <= 32)
        case .failure(let error):
            table.value(memoryMeasure, "failed: \(error)", target: "<= 32", passed: false)
        }
    }

    /// The rates in MB/s of reading a `size`-byte body with `a` and with `b` (each returns the bytes it read), one run
    /// of each per round, A B then B A so that neither side always runs first.
    private static func alternatingRuns(
        rounds: Int,
        size: Int,
        _ a: () -> Int,
        _ b: () -> Int
    ) -> Comparison {
        var round = 0
        return paired(rounds: rounds) {
            round += 1
            var rates = SideResults(a: 0, b: 0)
            for isA in round % 2 == 0 ? [true, false] : [false, true] {
                let start = Stamp.now()
                let bytes = isA ? a() : b()
                let elapsed = start.elapsed()
                let rate = bytes == size ? Double(size) / 1e6 / (Double(elapsed.nanoseconds) / 1e9) : 0
                if isA {
                    rates.a = rate
                    rates.cpuA = elapsed.cpuMicroseconds
                } else {
                    rates.b = rate
                    rates.cpuB = elapsed.cpuMicroseconds
                }
            }
            return rates
        }
    }

    /// Reads a streamed body through `session` to its end and returns how many bytes came, or -1 on failure.
    private static func streamedBytes(_ session: Session, _ request: Get) -> Int {
        blocking {
            do {
                var bytes = 0
                for try await chunk in try await session.stream(request) {
                    bytes += chunk.count
                }
                return bytes
            } catch {
                return -1
            }
        }
    }
}

/// The child process of the memory row: `fetch-bench --measure-stream-memory <url> <bytes> <bytes per second>` streams
/// the body through a `Session` to a consumer that reads at that pace, and prints the growth of its peak resident
/// memory, `growth <bytes>`.
enum StreamMemoryChild {
    static let flag = "--measure-stream-memory"

    /// Runs the child for `url` and returns the growth it measured, in bytes.
    static func run(url: URL, bytes: Int, rate: Double, timeout: TimeInterval) -> Result<Int, any Error> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [flag, url.absoluteString, String(bytes), String(format: "%.0f", rate)]
        let output: Pipe
        do {
            output = try Spawn.run(process) {
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                return output
            }
        } catch {
            return .failure(error)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
            if process.isRunning {
                process.terminate()
            }
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("growth ") }),
            let growth = Int(line.dropFirst("growth ".count))
        else {
            return .failure(
                LoopbackServerError("the measuring process exited with \(process.terminationStatus): \(text)"))
        }
        return .success(growth)
    }

    /// The child's side: streams and measures, prints `growth <bytes>`, and returns the exit status.
    static func main(_ arguments: ArraySlice<String>) -> Int32 {
        let values = Array(arguments)
        guard values.count == 3, let url = URL(string: values[0]), let bytes = Int(values[1]),
            let rate = Double(values[2]), rate > 0
        else {
            print("usage: fetch-bench \(flag) <url> <bytes> <bytes per second>")
            return 2
        }
        let session = Session(
            transport: URLSessionTransport(configuration: FetchBench.serverConfiguration()),
            callbackQueue: OperationQueue())
        let outcome = blocking { () -> Result<(growth: Int, bytes: Int), any Error> in
            do {
                let meter = try ResidentMemory()
                let started = now()
                var received = 0
                for try await chunk in try await session.stream(Get(url: url)) {
                    received += chunk.count
                    let ahead = Double(received) / rate - Double(now() - started) / 1e9
                    if ahead > 0 {
                        try await Task.sleep(for: .seconds(ahead))
                    }
                }
                return .success((try meter.peakGrowth(), received))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let measured) where measured.bytes == bytes:
            print("growth \(measured.growth)")
            return 0
        case .success(let measured):
            print("read \(measured.bytes) of \(bytes) bytes")
            return 1
        case .failure(let error):
            print("failed: \(error)")
            return 1
        }
    }
}

/// What a person writes by hand to read a large body as it arrives: a `URLSessionDataDelegate` that counts the bytes
/// of each `didReceive data` and hears the end in `didCompleteWithError`. One transfer at a time. Its session has the
/// default delegate queue, or one that runs each delegate call at once on the thread that hands it over.
final class ByteCountingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Transfer {
        var bytes = 0
        var done: DispatchSemaphore?
        var failed = false
    }

    private let transfer = Locked(Transfer())
    private let session = Locked<URLSession?>(nil)

    init(configuration: URLSessionConfiguration, inline: Bool) {
        super.init()
        // The session keeps its delegate until it is invalidated; fetch-bench keeps this one for the whole run.
        let queue = inline ? InlineQueue() : nil
        session.withLock { $0 = URLSession(configuration: configuration, delegate: self, delegateQueue: queue) }
    }

    /// Reads the body at `url` and returns its size in bytes, or -1 when the transfer failed.
    func count(_ url: URL) -> Int {
        let done = DispatchSemaphore(value: 0)
        transfer.withLock { $0 = Transfer(done: done) }
        session.withLock { $0 }?.dataTask(with: URLRequest(url: url)).resume()
        done.wait()
        return transfer.withLock { $0.failed ? -1 : $0.bytes }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer.withLock { $0.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let done = transfer.withLock { transfer -> DispatchSemaphore? in
            transfer.failed = error != nil
            return transfer.done
        }
        done?.signal()
    }
}

/// The peak resident memory of this process since the meter was made, from Linux's `/proc/self/status`.
struct ResidentMemory {
    static var isAvailable: Bool {
        FileManager.default.isReadableFile(atPath: "/proc/self/status")
            && FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs")
    }

    /// Resident memory when the meter was made, in bytes.
    let baseline: Int

    /// Resets the process's peak resident memory (`VmHWM`) to its current size (Linux 4.0 and later), and records
    /// that size.
    init() throws {
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        baseline = try Self.read("VmRSS")
    }

    /// How far the peak resident memory rose above the baseline, in bytes.
    func peakGrowth() throws -> Int {
        try Self.read("VmHWM") - baseline
    }

    private static func read(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
            let kilobytes = Int(line.dropFirst(field.count + 1).filter(\.isNumber))
        else {
            throw LoopbackServerError("no \(field) in /proc/self/status")
        }
        return kilobytes * 1024
    }
}

/// A delegate queue that runs each operation at once, on the thread that adds it.
private final class InlineQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: no state of its own; OperationQueue is thread-safe.
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }

    override func addOperation(_ operation: Operation) {
        operation.start()
    }
}
