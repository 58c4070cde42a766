import Fetch
import FetchTesting
import Foundation
import SpawnSupport
import Testing

/// Runs one suite again in a child process of this test binary, away from the tests that run in parallel in this
/// one: their threads and allocations would blur a measurement of memory or timing.
///
/// The child runs with `variable=1` in its environment; the test checks for it to tell which side it is on.
enum ChildSuiteRun {
    /// Whether this process is the child that measures, for `variable`.
    static func isChild(_ variable: String) -> Bool {
        guard ProcessInfo.processInfo.environment[variable] == "1" else {
            return false
        }
        Spawn.closeInheritedSockets()
        return true
    }

    /// Runs the suite `suite` in a child process with `variable=1`, and records an issue unless it passes; returns
    /// the child's output.
    @discardableResult
    static func run(suite: String, variable: String, timeout: Duration) async throws -> String {
        let (status, text) = try await outcome(suite: suite, variable: variable, timeout: timeout)
        #expect(status == 0, "the measuring run of \(suite) failed:\n\(text)")
        #expect(text.contains("Test run with 1 test"), "the measuring run did not run the test:\n\(text)")
        return text
    }

    /// Runs the suite `suite` in a child process with `variable=1`, and returns how the child ended and what it
    /// printed, for a caller that judges them itself.
    static func outcome(suite: String, variable: String, timeout: Duration) async throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", suite]
        process.environment = ProcessInfo.processInfo.environment.merging([variable: "1"]) { $1 }
        let exits = Captured<Int32>()
        process.terminationHandler = { exits.capture($0.terminationStatus) }
        let output = try Spawn.run(process) {
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            return output
        }
        let status: Int32
        do {
            status = try await exits.first(timeout: timeout.seconds)
        } catch {
            process.terminate()  // a child that outlives its bound is stopped, not left running
            throw error
        }
        let text = String(decoding: try output.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        return (status, text)
    }

    /// Whether a child process can be run: Linux's `/proc/self/exe`.
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: "/proc/self/exe")
    }
}
