import Foundation

/// A HAR file that cannot be read or written: not JSON, not a HAR archive, or with a field missing or of the wrong
/// type. It names the file and the JSON path of what is wrong:
///
/// ```text
/// /tmp/api.har: log.entries[3].response.status: missing (HAR 1.2 requires it)
/// ```
public struct HARError: Error, Sendable, Equatable {
    /// The file, when the archive came from one.
    package let file: URL?

    /// Where in the JSON the problem is, such as `log.entries[3].response.status`; empty when it is the file
    /// as a whole (it cannot be read, or is not JSON).
    package let path: String

    /// What is wrong there.
    package let reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - file: The file, if any.
    ///   - path: The JSON path of the problem, or `""` for the whole file.
    ///   - reason: What is wrong.
    package init(file: URL?, path: String, reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    /// The same error, naming `file`.
    func naming(_ file: URL) -> HARError {
        HARError(file: file, path: path, reason: reason)
    }
}

// MARK: - CustomStringConvertible

extension HARError: CustomStringConvertible {
    /// `/tmp/api.har: log.entries[3].response.status: missing (HAR 1.2 requires it)`.
    public var description: String {
        let source = file?.path ?? "HAR data"
        return path.isEmpty ? "\(source): \(reason)" : "\(source): \(path): \(reason)"
    }
}

// MARK: - LocalizedError

extension HARError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
