import FetchTesting
import Foundation
import SpawnSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of this test binary in a process of its own, filtered to some tests, with its output collected line by
/// line: for tests that measure a process's memory, kill a process midway, or share files between processes.
///
/// The child sees the parent's environment plus `environment`; a test tells that it is the child by a variable in it.
final class ChildTestRun: Sendable {
    private let process: Process
    private let lines = Captured<String>()
    private let exit = Captured<Int32>()
    /// Captures once when the child's output has ended.
    private let outputEnded = Captured<Bool>()

    struct Finished {
        let status: Int32
        let output: String
    }

    /// Starts the run of the tests that `filter` matches.
    init(filter: String, environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.terminationHandler = { [exit] in exit.capture($0.terminationStatus) }
        self.process = process
        let output = try Spawn.run(process) {
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            return output
        }
        let (lines, outputEnded) = (lines, outputEnded)
        Thread.detachNewThread {
            defer { outputEnded.capture(true) }
            var line = Data()
            // `availableData` returns what has arrived (`read(upToCount:)` would wait for the whole count), and
            // nothing once the pipe has closed.
            while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
                for byte in chunk {
                    if byte == UInt8(ascii: "\n") {
                        lines.capture(String(decoding: line, as: UTF8.self))
                        line.removeAll()
                    } else {
                        line.append(byte)
                    }
                }
            }
        }
    }

    /// Waits until the child has printed a line that `matches`.
    func waitForLine(within timeout: Duration, where matches: (String) -> Bool) async throws {
        var seen = 0
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let all = try await lines.wait(for: seen + 1, timeout: (deadline - ContinuousClock.now).seconds)
            seen = all.count
            if all.contains(where: matches) {
                return
            }
        }
        throw TestServerError("the child printed no such line within \(timeout):\n\(lines.values)")
    }

    /// Waits until the child has printed `PROGRESS <n>` with n of at least `bytes`.
    func waitForProgress(atLeast bytes: Int64, within timeout: Duration) async throws {
        try await waitForLine(within: timeout) { $0.hasPrefix("PROGRESS ") && (Int64($0.dropFirst(9)) ?? 0) >= bytes }
    }

    /// Kills the child at once, as a crash or the system would.
    func kill() {
        #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #else
            _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #endif
    }

    func finish(within timeout: Duration) async throws -> Finished {
        let status: Int32
        do {
            status = try await exit.first(timeout: timeout.seconds)
        } catch {
            process.terminate()
            throw error
        }
        _ = try await outputEnded.first(timeout: 10)
        return Finished(status: status, output: lines.values.joined(separator: "\n"))
    }

    /// Whether this test is the child of a run of itself alone; if it is not, runs it so, in a process of its own
    /// marked by `variable`, and records an issue unless that run passed within `timeout`.
    ///
    /// ```swift
    /// guard try await ChildTestRun.isChild(running: "Suite/test", marking: "VARIABLE", within: .seconds(120)) else {
    ///     return
    /// }
    /// // measured in a process of its own
    /// ```
    static func isChild(running filter: String, marking variable: String, within timeout: Duration) async throws
        -> Bool
    {
        guard ProcessInfo.processInfo.environment[variable] != "1" else {
            Spawn.closeInheritedSockets()
            return true
        }
        let finished = try await ChildTestRun(filter: filter, environment: [variable: "1"]).finish(within: timeout)
        #expect(finished.status == 0, "the run in a process of its own failed:\n\(finished.output)")
        #expect(finished.output.contains("Test run with 1 test"), "the child ran no test:\n\(finished.output)")
        return false
    }
}
