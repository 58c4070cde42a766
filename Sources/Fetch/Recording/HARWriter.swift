import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes entries into a HAR file as they are recorded, so that the file on disk is a valid HAR archive after every
/// write.
///
/// Each ``append(_:)`` adds one entry and rewrites the whole file: into a temporary file in the same directory,
/// flushed to disk, then renamed over the file. A reader, or a crash, sees the archive before or after the entry,
/// never half of it. Appends from many threads at once each add their entry; they are written one at a time.
///
/// ```swift
/// let writer = try HARWriter(file: URL(fileURLWithPath: "api.har"))
/// try writer.append(HAR.Entry(request: urlRequest, response: response, startedDateTime: start,
///                             timings: .total(duration)))
/// ```
///
/// `@unchecked Sendable`: the archive is behind `state`'s lock, which is also held while the file is written, so
/// that writes reach the disk in the order of the entries.
public final class HARWriter: @unchecked Sendable {
    /// The file written.
    public let file: URL

    private let state: Locked<HAR>

    /// Opens a HAR file to record into: an existing archive is read, and new entries are added after its own; a
    /// missing or empty file starts a new archive, written at the first append.
    ///
    /// - Parameters:
    ///   - file: The file.
    ///   - creator: The creator written into a new archive. The default is Fetch. An existing archive keeps its
    ///     own.
    ///   - startingOver: Whether to start a new archive even when the file has one; it replaces the file at the
    ///     first append. The default is `false`: add to the file's archive.
    /// - Throws: ``HARError`` when the file exists but is not a HAR archive, naming the JSON path of the problem:
    ///   Fetch does not write over a file it cannot read, unless told to start over.
    public init(file: URL, creator: HAR.Creator = .fetch, startingOver: Bool = false) throws {
        self.file = file
        let existing = startingOver ? nil : try Self.existingArchive(at: file)
        state = Locked(existing ?? HAR(creator: creator))
    }

    /// The archive as last written.
    public var archive: HAR {
        state.withLock { $0 }
    }

    /// Adds an entry and rewrites the file with it.
    ///
    /// - Parameter entry: The entry.
    /// - Throws: ``HARError`` when the file cannot be written; the entry is then not kept either, so the archive
    ///   stays what the file holds.
    public func append(_ entry: HAR.Entry) throws {
        try state.withLock { archive in
            var next = archive
            next.log.entries.append(entry)
            try write(next)
            archive = next
        }
    }

    /// Writes `archive` to a temporary file beside ``file``, flushes it, and renames it over ``file``.
    private func write(_ archive: HAR) throws {
        let data: Data
        do {
            data = try archive.encoded()
        } catch {
            throw HARError(file: file, path: "", reason: "cannot be encoded: \(ErrorText.describe(error))")
        }
        let directory = file.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw HARError(file: file, path: "", reason: "cannot create \(temporary.path)")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try handle.write(contentsOf: data)
                try handle.synchronize()
                try handle.close()
            } catch {
                // The write's error is the one reported; closing is only to release the descriptor.
                try? handle.close()
                throw error
            }
        } catch {
            removeTemporary(temporary)
            throw error as? HARError
                ?? HARError(
                    file: file, path: "", reason: "cannot write \(temporary.path): \(ErrorText.describe(error))")
        }
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            removeTemporary(temporary)
            throw HARError(
                file: file, path: "", reason: "cannot rename \(temporary.lastPathComponent) over it: \(reason)")
        }
    }

    private func removeTemporary(_ temporary: URL) {
        // Best effort after a failed write, which is the error reported; a leftover temporary file is harmless.
        try? FileManager.default.removeItem(at: temporary)
    }

    /// The archive in `file`, `nil` when there is none yet.
    private static func existingArchive(at file: URL) throws -> HAR? {
        guard FileManager.default.fileExists(atPath: file.path) else {
            return nil
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw HARError(file: file, path: "", reason: "cannot be read: \(ErrorText.describe(error))")
        }
        guard !data.isEmpty else {
            return nil
        }
        do {
            return try HAR(data: data)
        } catch let error as HARError {
            throw error.naming(file)
        }
    }
}
