import Foundation

/// The record kept beside a resumable download's partial file: what the bytes in it are, so that a later run can
/// ask for the rest.
///
/// It is written (atomically, 0600, never through a symbolic link) before any byte of a response goes into the
/// partial file, so the file's bytes always belong to the validator recorded here; `bytes` is a lower bound, updated
/// when an attempt ends.
struct PartialDownloadRecord: Codable, Equatable, Sendable {
    /// The format of this record; a record of another format is not used.
    static let currentFormat = 1

    var format = Self.currentFormat
    /// The request's URL.
    var url: String
    /// The strong `ETag` of the response whose bytes are in the file.
    var entityTag: String?
    /// The `Last-Modified` of that response, when it has no strong `ETag` and it is a strong validator (at least
    /// a second before the response's `Date`).
    var lastModified: String?
    /// The bytes known to be in the file.
    var bytes: Int64
    /// The length of the whole resource, when known.
    var total: Int64?

    /// What an earlier run left for a download.
    enum Found: Equatable {
        /// Nothing: no partial file and no record.
        case nothing
        /// A record that matches the URL and the partial file, which holds `bytes` usable bytes.
        case usable(PartialDownloadRecord, bytes: Int64)
        /// Something that cannot be trusted: an unreadable or foreign record, or a file that does not fit it.
        case unusable
    }

    /// Reads what an earlier run left at `partial` and `recordFile` for a download of `url`.
    ///
    /// - Throws: ``OwnerOnlyFile/Failure`` when either path is a symbolic link or not a regular file: nothing
    ///   there is read, followed or removed.
    static func find(partial: URL, recordFile: URL, url: String) throws -> Found {
        let partialKind = OwnerOnlyFile.kind(at: partial)
        for (path, kind) in [(partial, partialKind), (recordFile, OwnerOnlyFile.kind(at: recordFile))] {
            switch kind {
            case .symbolicLink: throw OwnerOnlyFile.Failure.symbolicLink(path.path)
            case .directory, .other: throw OwnerOnlyFile.Failure.notRegularFile(path.path)
            case .nothing, .regularFile: break
            }
        }
        let hasPartial = partialKind == .regularFile
        let read: Data?
        do {
            read = try OwnerOnlyFile.read(recordFile)
        } catch OwnerOnlyFile.Failure.system {
            return .unusable  // unreadable: started over, never trusted
        }
        guard let data = read else {
            return hasPartial ? .unusable : .nothing
        }
        guard hasPartial,
            let record = try? JSONDecoder().decode(PartialDownloadRecord.self, from: data),  // nil: corrupt
            record.format == currentFormat, record.url == url, record.entityTag != nil || record.lastModified != nil,
            record.entityTag.map({ !$0.hasPrefix("W/") }) ?? true,
            record.bytes >= 0, record.total.map({ $0 >= 0 }) ?? true,
            let size = fileSize(partial), size >= record.bytes, record.total.map({ size <= $0 }) ?? true
        else {
            return .unusable
        }
        return .usable(record, bytes: size)
    }

    /// The size of the regular file at `url`, or `nil` when there is none (a symbolic link is not followed).
    ///
    /// One `lstat(2)`: `URL.resourceValues(forKeys:)` cost about a million instructions a call on
    /// swift-corelibs-foundation, more than Fetch's whole part of a 1.2 MB download (callgrind).
    static func fileSize(_ url: URL) -> Int64? {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return nil
        }
        return Int64(clamping: status.st_size)
    }

    /// Writes the record to `file` (owner-only), replacing the old one in one step, never through a symbolic link.
    func save(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try OwnerOnlyFile.replace(file, with: try encoder.encode(self))
    }
}
