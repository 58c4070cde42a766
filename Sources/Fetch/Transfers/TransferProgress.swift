/// How far a download or an upload has come.
///
/// The values of one transfer never go backwards, with one exception: a resumable download that must start over
/// (see ``Event/restarting(_:)``) begins again at zero bytes, with a value that says so. A download that resumes
/// where it stopped continues from its count, so its values end at the total however often it resumed.
public struct TransferProgress: Sendable, Equatable, CustomStringConvertible {
    /// The bytes received (a download) or sent (an upload) so far.
    public let completedBytes: Int64

    /// The bytes expected in all (from `Content-Length` for a download, the file's size for an upload), or `nil`
    /// when unknown.
    public let expectedBytes: Int64?

    /// What just happened to a resumable download, or `nil` for a value that only counts bytes.
    public let event: Event?

    /// Something that happened to a resumable download, reported with the progress value that follows it.
    ///
    /// A struct, not an enum, so that a later release can add events: compare with `==`
    /// (`progress.event == .resuming`), and read ``restartReason`` for a restart.
    public struct Event: Sendable, Hashable, CustomStringConvertible {
        /// The event's name, as its static member spells it.
        fileprivate let name: String
        /// Why the download starts over, for ``restarting(_:)``; `nil` for any other event.
        public let restartReason: RestartReason?

        private init(_ name: String, restartReason: RestartReason? = nil) {
            self.name = name
            self.restartReason = restartReason
        }

        /// `resuming`, or `restarting(noValidator)`.
        public var description: String { restartReason.map { "\(name)(\($0))" } ?? name }

        /// The download continues from ``TransferProgress/completedBytes`` with a range request: after its
        /// connection dropped or timed out, or from a partial file that an earlier run left.
        public static let resuming = Event("resuming")
        /// The download starts over from zero bytes, because of `reason`; the value that carries this event has
        /// ``TransferProgress/completedBytes`` 0.
        public static func restarting(_ reason: RestartReason) -> Event { Event("restarting", restartReason: reason) }
    }

    /// Why a resumable download starts over rather than resumes: compare with `==`; a later release may add
    /// reasons.
    public struct RestartReason: Sendable, Hashable, CustomStringConvertible {
        /// The reason's name, as its static member spells it.
        public let description: String

        private init(_ name: String) {
            description = name
        }

        /// The server answered a range request with the whole resource: it changed since the download began.
        public static let resourceChanged = RestartReason("resourceChanged")
        /// The server does not announce `Accept-Ranges: bytes`.
        public static let rangesNotSupported = RestartReason("rangesNotSupported")
        /// The response has no strong validator: neither a strong `ETag` nor a `Last-Modified` at least a second
        /// before its `Date` (RFC 9110 §8.8.2.2), so a resumed body could not be told apart from a changed one.
        public static let noValidator = RestartReason("noValidator")
        /// The server answered `416 Range Not Satisfiable`: the resource is shorter than the bytes already kept.
        public static let rangeNotSatisfiable = RestartReason("rangeNotSatisfiable")
        /// The partial file or its record, left by an earlier run, is unreadable or belongs to another download.
        public static let unusablePartialFile = RestartReason("unusablePartialFile")
    }

    /// Creates a progress value: downloads and uploads make them, and tests compare with them.
    ///
    /// - Parameters:
    ///   - completedBytes: The bytes transferred so far.
    ///   - expectedBytes: The bytes expected in all, or `nil` when unknown.
    ///   - event: What just happened to a resumable download, or `nil`.
    package init(completedBytes: Int64, expectedBytes: Int64?, event: Event? = nil) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
        self.event = event
    }

    /// The part done, from 0 to 1, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else {
            return nil
        }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }

    /// `12345 of 200000 bytes`, or `12345 bytes` when the total is unknown, followed by the event if there is one.
    public var description: String {
        let bytes = expectedBytes.map { "\(completedBytes) of \($0) bytes" } ?? "\(completedBytes) bytes"
        guard let event else {
            return bytes
        }
        if let reason = event.restartReason {
            return "\(bytes), restarting (\(reason))"
        }
        return "\(bytes), \(event.name)"
    }
}
