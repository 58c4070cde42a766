import Fetch
import FetchTesting
import Foundation
import SpawnSupport

/// A program the tests run, with its output collected and every wait bounded.
final class ChildProcess: Sendable {
    /// How a finished program ended.
    struct Finished: Sendable {
        let status: Int32
        let output: String
        let errors: String
    }

    private let process: Process
    private let stdinPipe: Pipe
    private let stdoutPipe: Pipe
    private let stderrPipe: Pipe
    private let exit = Locked((status: Int32?.none, waiter: CheckedContinuation<Int32, Never>?.none))

    /// Starts `executable` with `arguments`.
    init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        self.process = process
        let exit = exit
        process.terminationHandler = { finished in
            let status = finished.terminationStatus
            let waiter = exit.withLock { state in
                state.status = status
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: status)
        }
        (stdinPipe, stdoutPipe, stderrPipe) = try Spawn.run(process) {
            let pipes = (Pipe(), Pipe(), Pipe())
            process.standardInput = pipes.0
            process.standardOutput = pipes.1
            process.standardError = pipes.2
            return pipes
        }
    }

    /// Runs `executable` to its end and returns what it printed; kills it and throws after `timeout`.
    static func run(_ executable: URL, _ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Finished
    {
        let child = try ChildProcess(executable, arguments)
        return try await child.finish(within: timeout)
    }

    /// Waits for the program to end, and returns its status and what it printed; kills it and throws after `timeout`.
    func finish(within timeout: Duration) async throws -> Finished {
        let timedOut = Locked(false)
        let killer = Task { [process, exit] in
            try await Task.sleep(for: timeout)
            timedOut.withLock { $0 = true }
            process.terminate()
            // The wait ends even if the exit is never reported.
            try await Task.sleep(for: .seconds(5))
            let waiter = exit.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: -1)
        }
        let status = await waitForExit()
        killer.cancel()
        guard !timedOut.withLock({ $0 }) else {
            // Not read to its end: whatever holds the pipes open would hold this wait too.
            throw ChildProcessError("\(process.executableURL?.path ?? "the program") did not end within \(timeout)")
        }
        let output = String(decoding: stdoutPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Finished(status: status, output: output, errors: errors)
    }

    /// The first line the program prints, within `timeout`; kills it and throws when it prints none by then.
    func firstLine(within timeout: Duration) async throws -> String {
        let handle = stdoutPipe.fileHandleForReading
        let line = Captured<String>()
        Thread.detachNewThread {
            var bytes = Data()
            while let chunk = try? handle.read(upToCount: 1), let byte = chunk.first, byte != UInt8(ascii: "\n") {
                bytes.append(byte)
            }
            line.capture(String(decoding: bytes, as: UTF8.self))
        }
        do {
            return try await line.first(timeout: timeout.seconds)
        } catch {
            stop()
            throw ChildProcessError("\(process.executableURL?.path ?? "the program") printed no line within \(timeout)")
        }
    }

    /// Asks the program to stop: closes its standard input and sends it SIGTERM.
    func stop() {
        try? stdinPipe.fileHandleForWriting.close()  // already closed is fine: the program is stopping either way
        if process.isRunning {
            process.terminate()
        }
    }

    /// Stops the program and waits, up to `timeout`, for it to end.
    func stopAndWait(timeout: Duration = .seconds(10)) async throws {
        stop()
        _ = try await finish(within: timeout)
    }

    private func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = exit.withLock { state -> Int32? in
                if state.status == nil {
                    state.waiter = continuation
                }
                return state.status
            }
            if let status {
                continuation.resume(returning: status)
            }
        }
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
