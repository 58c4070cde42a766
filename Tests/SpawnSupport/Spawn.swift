import Foundation

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

    /// Runs `process`, whose standard streams are set already (to files or `FileHandle.nullDevice`), while no other
    /// child is starting.
    public static func run(_ process: Process) throws {
        try run(process) { () }
    }
}
