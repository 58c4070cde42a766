import Foundation

/// `Tests/FetchTests/Support/Server/validate_har.py`, the suite's HAR 1.2 checker written in Python with its standard library: a reader
/// independent of Fetch's own decoder.
enum HARValidation {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // FetchExampleTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("FetchTests/Support/Server/validate_har.py")

    /// Checks `file`: status 0 and `valid HAR 1.2: <n> entries` when it is valid, status 1 and one line per problem
    /// when not. Throws when Python cannot run it or it does not finish within 30 s.
    static func check(_ file: URL) async throws -> ChildProcess.Finished {
        try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, file.path], timeout: .seconds(30))
    }
}
