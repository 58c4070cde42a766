import Fetch
import Foundation
import SpawnSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One child process of the hostile suite, read line by line.
final class HostileChild: Sendable {
    /// The environment variable that makes a run of this binary the hostile suite's child.
    static let variable = "FETCH_HOSTILE_CHILD"
    static let faceVariable = "FETCH_HOSTILE_FACE"
    static let behavioursVariable = "FETCH_HOSTILE_BEHAVIOURS"

    private enum Event: Sendable {
        case line(String)
        case exited(Int32)
    }

    private let process: Process
    private let events: AsyncStream<Event>
    private let state = Locked(State())

    private struct State {
        var status: Int32 = -1
        var begunAny = false
        var output: [String] = []
        /// The lines that say why the child crashed: the fatal error, and the first frames of the crashed thread.
        var crash: [String] = []
        var crashFramesToKeep = 0
        /// Counts BEGIN lines, so that a watchdog armed for one behaviour does not kill the child in a later one.
        var generation = 0
    }

    /// The child's exit status, once it has ended.
    var status: Int32 { state.withLock { $0.status } }
    /// Whether the child began any behaviour.
    var begunAny: Bool { state.withLock { $0.begunAny } }
    /// The last lines the child printed.
    var outputTail: String {
        state.withLock { ($0.crash + ["…"] + $0.output).joined(separator: "\n") }
    }

    /// Starts the child that runs the behaviours named `behaviours`, in order, on `face`.
    init(face: SessionFace, behaviours: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "--testing-library", "swift-testing", "--filter", "HostileServerTests/runsTheBehavioursInAChild",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging([
            Self.variable: "1", Self.faceVariable: face.rawValue,
            Self.behavioursVariable: behaviours.joined(separator: ","),
        ]) { $1 }
        let exited = DispatchSemaphore(value: 0)
        let status = Locked<Int32>(-1)
        process.terminationHandler = {
            let code = $0.terminationStatus
            status.withLock { $0 = code }
            exited.signal()
        }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.process = process
        self.events = events
        let output = try Spawn.run(process) {
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            return output
        }
        Thread.detachNewThread {
            var line = Data()
            // `availableData` returns what has arrived, and nothing once the pipe has closed.
            while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
                for byte in chunk {
                    if byte == UInt8(ascii: "\n") {
                        continuation.yield(.line(String(decoding: line, as: UTF8.self)))
                        line.removeAll()
                    } else {
                        line.append(byte)
                    }
                }
            }
            if !line.isEmpty {
                continuation.yield(.line(String(decoding: line, as: UTF8.self)))
            }
            // The pipe closes as the child ends; its status follows.
            _ = exited.wait(timeout: .now() + 30)
            continuation.yield(.exited(status.withLock { $0 }))
            continuation.finish()
        }
    }

    /// Reads the child's lines until it ends, adding a verdict for each behaviour it ended, died in or hung in.
    ///
    /// - Returns: The behaviour the child died or was killed in, or `nil` if it ended between behaviours.
    @discardableResult
    func collect(into verdicts: inout [String: HostileVerdict]) async -> String? {
        var current: String?
        var killedIn: String?
        let killed = Locked<String?>(nil)
        for await event in events {
            switch event {
            case .line(let line):
                state.withLock {
                    $0.output.append(line)
                    if $0.output.count > 12 {
                        $0.output.removeFirst()
                    }
                    if $0.crashFramesToKeep > 0 {
                        $0.crash.append(line)
                        $0.crashFramesToKeep -= 1
                    } else if line.contains("Fatal error") || line.contains("Program crashed") {
                        $0.crash.append(line)
                    } else if line.contains(" crashed:") {
                        $0.crash.append(line)
                        $0.crashFramesToKeep = 8
                    }
                }
                if line.hasPrefix("BEGIN ") {
                    let name = String(line.dropFirst(6))
                    current = name
                    arm(watchdogFor: name, killed: killed)
                } else if line.hasPrefix("END ") {
                    let rest = line.dropFirst(4)
                    guard let space = rest.firstIndex(of: " ") else {
                        continue
                    }
                    let name = String(rest[..<space])
                    do {
                        let result = try JSONDecoder().decode(
                            HostileResult.self, from: Data(rest[rest.index(after: space)...].utf8))
                        verdicts[name] = .finished(result)
                    } catch {
                        verdicts[name] = .died(
                            status: -1, output: "an END line that does not decode (\(error)): \(line)")
                    }
                    current = nil
                    state.withLock { $0.generation += 1 }
                }
            case .exited(let status):
                state.withLock { $0.status = status }
                killedIn = killed.withLock { $0 }
            }
        }
        guard let current else {
            return nil
        }
        if killedIn == current {
            verdicts[current] = .killed(output: outputTail)
        } else {
            verdicts[current] = .died(status: status, output: outputTail)
        }
        return current
    }

    /// Kills the child if `name` has not ended within ``HostileBounds/watchdog``.
    private func arm(watchdogFor name: String, killed: Locked<String?>) {
        let generation = state.withLock {
            $0.begunAny = true
            $0.generation += 1
            return $0.generation
        }
        let pid = process.processIdentifier
        Task { [state] in
            do {
                try await Task.sleep(for: HostileBounds.watchdog)
            } catch {
                return
            }
            guard state.withLock({ $0.generation }) == generation else {
                return
            }
            killed.withLock { $0 = name }
            #if canImport(Glibc)
                _ = Glibc.kill(pid, SIGKILL)
            #else
                _ = Darwin.kill(pid, SIGKILL)
            #endif
        }
    }
}
