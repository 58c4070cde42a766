import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts the child processes of the tests and of fetch-bench one at a time, so that none inherits another's pipes.
///
/// On swift-corelibs-foundation, `Process.run()` lists the descriptors open in `/proc/self/fd` and closes them in the
/// child; a descriptor another thread opens between that list and the spawn is inherited, as none of Foundation's is
/// close-on-exec. When two tests start children at once, one child can inherit the other's pipes, or the socket
/// `Process` watches the other's exit through. A long-lived child (a loopback server) that does keeps that output
/// open and that exit unseen, and the test waiting for either waits forever: the suite hung so under CI.
///
/// Everything that starts a child in this package's test process creates the child's pipes and runs it inside
/// ``run(_:wiring:)``: while one is starting, no other's descriptors are being made.
public enum Spawn {
    private static let lock = NSLock()

    /// Makes the pipes of `process` with `wiring` (which assigns them to it and returns them), then runs it, while no
    /// other child is starting.
    public static func run<Wiring>(_ process: Process, wiring: () throws -> Wiring) throws -> Wiring {
        lock.lock()
        defer { lock.unlock() }
        let wired = try wiring()
        try process.run()
        return wired
    }

    /// Closes, once, the TCP sockets this process inherited from the one that started it; a child test run calls it
    /// before it opens any.
    ///
    /// A socket the parent opens while a child starts is inherited all the same (libcurl, under both transports, makes
    /// its sockets without close-on-exec), and a child that holds a test's connection keeps it open after that test
    /// closes it: the server never sees the close the test waits for. Unix sockets and pipes stay open: one of them is
    /// how `Process` sees this child exit. The Python servers do the same (`Support/Server/inherited.py`).
    public static func closeInheritedSockets() {
        _ = inheritedSocketsClosed
    }

    private static let inheritedSocketsClosed: Void = {
        #if os(Linux)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
                return  // no /proc: nothing to list
            }
            for name in names {
                guard let descriptor = Int32(name), descriptor > 2 else {
                    continue
                }
                var domain: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(descriptor, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 else {
                    continue  // not a socket, or the descriptor the listing itself used
                }
                if domain == AF_INET || domain == AF_INET6 {
                    close(descriptor)
                }
            }
        #endif
    }()

    /// Runs `process` to its end, while no other child is starting, and returns its exit status and what it wrote to
    /// its standard output.
    public static func output(of process: Process) throws -> (status: Int32, output: Data) {
        let output = try run(process) {
            let output = Pipe()
            process.standardOutput = output
            return output
        }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, printed)
    }

    /// Runs `process`, whose standard streams are set already (to files or `FileHandle.nullDevice`), while no other
    /// child is starting.
    public static func run(_ process: Process) throws {
        try run(process) { () }
    }
}
