import Foundation

/// A directory of its own for a test, deleted with this value (a suite that keeps one as a property deletes it after
/// each test), so that test runs leave nothing in the temporary directory.
final class TemporaryDirectory: Sendable {
    let url: URL

    /// Creates `<temporary directory>/<prefix>-<UUID>`.
    init(_ prefix: String = "fetch-tests") throws {
        url = FileManager.default.temporaryDirectory.appending(path: "\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)  // nil: best-effort clean-up; a test may have removed it itself
    }
}
