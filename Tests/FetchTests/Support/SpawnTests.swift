import Fetch
import Foundation
import SpawnSupport
import Testing

/// The tests' children start one at a time (``Spawn``), so that a long-lived one (a loopback server) holds no other
/// child's pipes or exit socket: on corelibs, a child started while another's descriptors are being made inherits
/// them, and a test waiting on that other child then waits for ever.
@Suite struct SpawnTests {
    static let childVariable = "FETCH_SPAWN_CHILD"

    /// corelibs lists the open descriptors, then closes each in the child before the spawn: the more are open, the
    /// longer the window in which another thread's new ones are missed. With 4,000 open, 1 to 4 of 200 children
    /// started at once inherited another's without the lock, with 8,000 open 5 to 8 (measured while writing this
    /// test); with it, none. The test opens 6,000 and starts 400.
    @Test(.enabled(if: ChildSuiteRun.isAvailable, "needs /proc/self/exe and /proc/self/fd (Linux)"))
    func childrenStartedAtOnceInheritNoneOfEachOthersDescriptors() async throws {
        guard ChildSuiteRun.isChild(Self.childVariable) else {
            // A process of its own: the descriptors it opens would starve the tests running beside it.
            let (status, output) = try await ChildSuiteRun.outcome(
                suite: "SpawnTests/childrenStartedAtOnceInheritNoneOfEachOthersDescriptors",
                variable: Self.childVariable, timeout: .seconds(120))
            if Self.isCorelibsListingCrash(status: status, output: output) {
                withKnownIssue("swift-corelibs-foundation #5472 (fixed after Swift 6.3.1)") {
                    Issue.record("Process.run() read past readdir's buffer listing /proc/self/fd:\n\(output)")
                }
                return
            }
            #expect(status == 0, "the measuring run failed:\n\(output)")
            #expect(output.contains("Test run with 1 test"), "the measuring run did not run the test:\n\(output)")
            return
        }
        let alone = try Self.descriptorsOfAChild()
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let extra = max(0, min(6_000, Int(clamping: limit.rlim_cur) - 4_000))
        let held = (0..<extra).map { _ in open("/dev/null", O_RDONLY) }
        defer {
            for descriptor in held where descriptor >= 0 {
                close(descriptor)
            }
        }
        try #require(held.allSatisfy { $0 >= 0 })

        let counts = Locked([Int: Int]())
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 400) { _ in
            do {
                let count = try Self.descriptorsOfAChild()
                counts.withLock { $0[count, default: 0] += 1 }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(counts.withLock { $0 } == [alone: 400], "descriptors a child held, and how many children held so many")
    }

    /// A child test run closes the TCP sockets it inherited (one the parent opened while the child started would keep
    /// that connection open), and keeps its unix sockets and pipes, through which `Process` sees it exit.
    @Test(.enabled(if: ChildSuiteRun.isAvailable, "needs /proc/self/exe and /proc/self/fd (Linux)"))
    func aChildClosesTheTCPSocketsItInheritedAndKeepsItsOthers() async throws {
        // Not `ChildSuiteRun.isChild`, which closes them at once: the sockets are made first, in the child.
        guard ProcessInfo.processInfo.environment[Self.socketsVariable] == "1" else {
            try await ChildSuiteRun.run(
                suite: "SpawnTests/aChildClosesTheTCPSocketsItInheritedAndKeepsItsOthers",
                variable: Self.socketsVariable, timeout: .seconds(60))
            return
        }
        let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let tcp6 = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        var pair: [Int32] = [-1, -1]
        try #require(tcp >= 0 && tcp6 >= 0)
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let pipe = Pipe()
        Spawn.closeInheritedSockets()
        #expect(fcntl(tcp, F_GETFD) == -1 && fcntl(tcp6, F_GETFD) == -1, "the TCP sockets are closed")
        #expect(fcntl(pair[0], F_GETFD) >= 0 && fcntl(pair[1], F_GETFD) >= 0, "the unix sockets stay open")
        #expect(fcntl(pipe.fileHandleForReading.fileDescriptor, F_GETFD) >= 0, "the pipe stays open")
        close(pair[0])
        close(pair[1])
    }

    static let socketsVariable = "FETCH_SPAWN_SOCKETS_CHILD"

    /// Every test and benchmark starts its children through ``Spawn``: one that called `Process.run()` itself would
    /// reopen the window.
    @Test func everyChildIsStartedThroughSpawn() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var offenders: [String] = []
        for folder in ["Tests", "Benchmarks", "Examples"] {
            let enumerator = try #require(
                FileManager.default.enumerator(at: root.appending(path: folder), includingPropertiesForKeys: nil))
            for case let file as URL in enumerator where file.pathExtension == "swift" {
                guard file.lastPathComponent != "Spawn.swift", file.lastPathComponent != "SpawnTests.swift" else {
                    continue
                }
                let text = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains("process.run()") {
                    offenders.append("\(file.path.dropFirst(root.path.count + 1)):\(number + 1)")
                }
            }
        }
        #expect(offenders == [], "these start a child without Spawn.run")
    }

    /// Whether the child died of swift-corelibs-foundation #5472: `Process.run()` on Swift 6.3.1 copies 256 bytes of
    /// each `/proc/self/fd` entry's name, past the end of readdir's buffer when the entry ends a page, and faults; the
    /// more descriptors are open, the likelier. Not what this test is about, and not Fetch's to mend.
    static func isCorelibsListingCrash(status: Int32, output: String) -> Bool {
        status == SIGSEGV && output.contains("Bad pointer dereference") && output.contains("Process.run()")
    }

    /// How many descriptors a fresh `/bin/sh` holds, listed by `ls` (which it starts, and which does not count).
    static func descriptorsOfAChild() throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ls /proc/$$/fd"]
        let (status, listed) = try Spawn.output(of: process)
        guard status == 0 else {
            throw TestServerError("ls /proc/$$/fd exited with \(status)")
        }
        return String(decoding: listed, as: UTF8.self).split(separator: "\n").count
    }
}
