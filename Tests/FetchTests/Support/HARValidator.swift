import Fetch
import Foundation
import SpawnSupport

/// Runs `Tests/FetchTests/Support/Server/validate_har.py`, an independent HAR 1.2 checker written in Python with its standard library,
/// on a file.
enum HARValidator {
    /// What the checker printed, and whether it found the file valid.
    struct Verdict {
        let isValid: Bool
        let output: String
    }

    /// Checks `file`; fails when Python cannot run or the checker does not finish within 30 s.
    static func check(_ file: URL) throws -> Verdict {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .appendingPathComponent("Server/validate_har.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, file.path]
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        let output = try Spawn.run(process) {
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            return output
        }
        // Read while it runs, so that a long report cannot fill the pipe and block the checker.
        let text = Locked("")
        let read = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            text.withLock { $0 = String(decoding: data, as: UTF8.self) }
            read.signal()
        }
        guard finished.wait(timeout: .now() + 30) == .success, read.wait(timeout: .now() + 10) == .success else {
            process.terminate()
            throw TestServerError("validate_har.py did not finish within 30 s on \(file.path)")
        }
        return Verdict(isValid: process.terminationStatus == 0, output: text.withLock { $0 })
    }
}
