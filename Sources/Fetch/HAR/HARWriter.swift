import Foundation

/// Writes entries into a HAR file as they are recorded, so that the file on disk is a valid HAR archive after every
/// write.
///
/// Each ``append(_:)`` adds one entry and rewrites the whole file: into a new file in the same directory, flushed
/// to disk, then renamed over the file. A reader, or a crash, sees the archive before or after the entry,
/// never half of it. Appends from many threads at once each add their entry; one of them writes the file for all the
/// entries that arrived while the previous write was under way, and each returns once its entry is on disk.
///
/// ```swift
/// let writer = try HARWriter(file: URL(fileURLWithPath: "api.har"))
/// try writer.append(
///     HAR.Entry(
///         request: urlRequest, response: response, startedDateTime: start,
///         timings: .total(duration)))
/// ```
///
/// A HAR file holds bodies, cookies and URLs, so it is written readable by its owner only (mode 0600, whatever the
/// umask, on every rewrite). A symbolic link at the file's path is not followed: the writer refuses one, and a
/// link planted later is replaced by the file, never written through. A directory at the path is refused too.
///
/// Each entry is encoded once, when it is appended; a write joins the encoded entries. Keep one writer per file:
/// two writers of the same file each write their own archive, and the last write wins.
package final class HARWriter: Sendable {
    /// The file written.
    package let file: URL

    /// An entry waiting to be written, and the thread that appended it, waiting for the write.
    private struct Pending: Sendable {
        let entry: HAR.Entry
        let json: Data
        /// Secret values the entry's call sent, to scrub from every entry of the file.
        let secrets: [String]
        let written: DispatchSemaphore
        let failure: Locked<HARError?>
    }

    private struct State: Sendable {
        /// The archive as the file holds it.
        var archive: HAR
        /// The entries of ``archive``, encoded.
        var encodedEntries: [Data]
        /// Entries appended and not written yet, in order.
        var pending: [Pending] = []
        /// Whether an append is writing the file.
        var isWriting = false
        /// Every secret value the recorded calls sent: none of them is ever written, in any entry, even one recorded
        /// before it was sent (a login's answer that carries the token the later calls send).
        var secrets: [String] = []
    }

    private let state: Locked<State>

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
    ///   Fetch does not write over a file it cannot read, unless told to start over. Also when the path is a
    ///   directory, a symbolic link, or ends in `/` or has `.` or `..` components, even when starting over.
    package init(file: URL, creator: HAR.Creator = .fetch, startingOver: Bool = false) throws {
        if let reason = FilePathCheck.problem(with: file, for: .writing) {
            throw HARError(file: file, path: "", reason: "cannot be recorded into: \(reason)")
        }
        self.file = file
        let archive = (startingOver ? nil : try Self.existingArchive(at: file)) ?? HAR(creator: creator)
        let encoded: [Data]
        do {
            encoded = try archive.log.entries.map(HARDocument.encode)
        } catch {
            throw HARError(file: file, path: "", reason: "cannot be encoded again: \(ErrorText.describe(error))")
        }
        state = Locked(State(archive: archive, encodedEntries: encoded))
    }

    /// The archive as last written.
    package var archive: HAR {
        state.withLock { $0.archive }
    }

    /// Adds an entry and rewrites the file with it; returns once the file on disk holds it.
    ///
    /// - Parameter entry: The entry.
    /// - Throws: ``HARError`` when the entry cannot be encoded or the file cannot be written; the entry is then not
    ///   kept either, so the archive stays what the file holds.
    package func append(_ entry: HAR.Entry) throws {
        try append(entry, scrubbing: [])
    }

    /// Adds an entry, and keeps `secrets` out of every entry of the file from now on, those already written too.
    package func append(_ entry: HAR.Entry, scrubbing secrets: [String]) throws {
        let json: Data
        do {
            json = try HARDocument.encode(entry)
        } catch {
            throw HARError(file: file, path: "", reason: "cannot encode the entry: \(ErrorText.describe(error))")
        }
        let pending = Pending(
            entry: entry, json: json, secrets: secrets, written: DispatchSemaphore(value: 0), failure: Locked(nil))
        let writes = state.withLock { state in
            state.pending.append(pending)
            defer { state.isWriting = true }
            return !state.isWriting
        }
        if writes {
            writeWhilePending()
        }
        pending.written.wait()
        if let failure = pending.failure.withLock({ $0 }) {
            throw failure
        }
    }

    /// Writes the file for the pending entries, again and again until none arrived during the last write, then
    /// hands the role back. Only one append at a time runs this.
    private func writeWhilePending() {
        while true {
            let next = state.withLock { state -> (HAR, [Data], [Pending], [String], Int)? in
                guard !state.pending.isEmpty else {
                    state.isWriting = false
                    return nil
                }
                defer { state.pending = [] }
                var secrets = state.secrets
                for secret in state.pending.flatMap(\.secrets) where !secrets.contains(secret) {
                    secrets.append(secret)
                }
                return (state.archive, state.encodedEntries, state.pending, secrets, state.secrets.count)
            }
            guard let (archive, written, batch, secrets, knownSecrets) = next else {
                return
            }
            do {
                // Entries are encoded once, unless a new secret means every entry is scrubbed and encoded again.
                let scrubber = HARScrubber(secrets: secrets)
                var entries = archive.log.entries
                var encoded = written
                if secrets.count > knownSecrets {
                    entries = entries.map { $0.scrubbed(with: scrubber) }
                    encoded = try entries.map(HARDocument.encode)
                }
                let added = batch.map { scrubber.isEmpty ? $0.entry : $0.entry.scrubbed(with: scrubber) }
                entries += added
                encoded += scrubber.isEmpty ? batch.map(\.json) : try added.map(HARDocument.encode)
                try write(HARDocument.join(log: archive.log, entries: encoded))
                state.withLock { state in
                    state.archive.log.entries = entries
                    state.encodedEntries = encoded
                    state.secrets = secrets
                }
            } catch {
                let failure = error as? HARError ?? HARError(file: file, path: "", reason: ErrorText.describe(error))
                for pending in batch {
                    pending.failure.withLock { $0 = failure }
                }
            }
            for pending in batch {
                pending.written.signal()
            }
        }
    }

    /// Writes `data` to a new owner-only file beside ``file``, flushes it, and renames it over ``file``.
    private func write(_ data: Data) throws {
        do {
            try OwnerOnlyFile.replace(file, with: data)
        } catch {
            throw HARError(file: file, path: "", reason: "cannot be written: \(ErrorText.describe(error))")
        }
    }

    /// The archive in `file`, `nil` when there is none yet.
    private static func existingArchive(at file: URL) throws -> HAR? {
        let read: Data?
        do {
            read = try OwnerOnlyFile.read(file)
        } catch {
            throw HARError(file: file, path: "", reason: "cannot be read: \(ErrorText.describe(error))")
        }
        guard let data = read, !data.isEmpty else {
            return nil
        }
        do {
            return try HAR(data: data)
        } catch let error as HARError {
            throw error.naming(file)
        }
    }
}

/// A HAR file put together from entries encoded one by one, so that an append encodes only its own entry: the same
/// indented JSON with sorted keys that ``HAR/encoded()`` writes, with the entries last.
private enum HARDocument {
    /// The members of a log other than its entries.
    private struct LogHeader: Encodable {
        let version: String
        let creator: HAR.Creator
        let browser: HAR.Creator?
        let pages: [HAR.Page]?
        let comment: String?
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// An entry as it sits in the file's `entries` array: indented three levels.
    static func encode(_ entry: HAR.Entry) throws -> Data {
        indented(try encoder().encode(entry), by: 6)
    }

    /// The whole file: the log's other members, then the entries.
    static func join(log: HAR.Log, entries: [Data]) throws -> Data {
        let header = LogHeader(
            version: log.version, creator: log.creator, browser: log.browser, pages: log.pages, comment: log.comment)
        // `{`, the members one level in, `}`: the members are kept and moved one more level in.
        let lines = indented(try encoder().encode(header), by: 2).split(
            separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var document = Data("{\n  \"log\" : {\n".utf8)
        for member in lines.dropFirst().dropLast() {
            document.append(contentsOf: member)
            document.append(UInt8(ascii: "\n"))
        }
        // The last member gets the comma that separates it from the entries.
        document.insert(UInt8(ascii: ","), at: document.index(before: document.endIndex))
        document.append(contentsOf: Data("    \"entries\" : [\n".utf8))
        for (index, entry) in entries.enumerated() {
            document.append(entry)
            document.append(contentsOf: Data((index < entries.count - 1 ? ",\n" : "\n").utf8))
        }
        document.append(contentsOf: Data("    ]\n  }\n}\n".utf8))
        return document
    }

    /// `json` with every line that is not empty moved `spaces` to the right.
    private static func indented(_ json: Data, by spaces: Int) -> Data {
        let indent = Data(repeating: UInt8(ascii: " "), count: spaces)
        var result = Data()
        result.reserveCapacity(json.count + json.count / 8)
        var atLineStart = true
        for byte in json {
            if atLineStart && byte != UInt8(ascii: "\n") {
                result.append(indent)
            }
            result.append(byte)
            atLineStart = byte == UInt8(ascii: "\n")
        }
        return result
    }
}
