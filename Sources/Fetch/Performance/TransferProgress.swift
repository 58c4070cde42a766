/// How far a download or an upload has come.
public struct TransferProgress: Sendable, Equatable, CustomStringConvertible {
    /// The bytes received (a download) or sent (an upload) so far.
    public let completedBytes: Int64

    /// The bytes expected in all (from `Content-Length` for a download, the file's size for an upload), or `nil`
    /// when unknown.
    public let expectedBytes: Int64?

    /// Creates a progress value.
    ///
    /// - Parameters:
    ///   - completedBytes: The bytes transferred so far.
    ///   - expectedBytes: The bytes expected in all, or `nil` when unknown.
    public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// The part done, from 0 to 1, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else {
            return nil
        }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }

    /// `12345 of 200000 bytes`, or `12345 bytes` when the total is unknown.
    public var description: String {
        expectedBytes.map { "\(completedBytes) of \($0) bytes" } ?? "\(completedBytes) bytes"
    }
}
