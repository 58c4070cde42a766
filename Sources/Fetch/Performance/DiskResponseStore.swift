import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Responses kept in files in one directory, so that they outlive the process, bounded in bytes, evicting the least
/// recently used first.
///
/// **Files.** Each response is one file, `<hash of the key>.response` (32 hexadecimal digits: two ``ContentHash``es
/// of the key): a magic number, the metadata (status, headers, URL, `Vary` values, times, freshness) in a small
/// binary layout, the body, and a ``ContentHash`` of all of it (see ``encode(_:)``). A file is written under a
/// temporary name (`.<name>.<UUID>.tmp`) and renamed into place, so a reader sees a whole file or none. A file that
/// is truncated, corrupt, of another format or another key is never served: it is removed when met. The hash guards
/// against damage (a cut write, a bad sector, a stray edit), not against someone who can write the directory: they
/// could write a matching hash as well, as they could have written a matching SHA-256 before. Two keys whose names
/// collide only replace each other's file, since the key stored in the file is compared on every read. Files in the
/// directory that are not the store's are removed when the store opens it, among them the files of the previous
/// format (`FETCHRS2`, named by the SHA-256 of the key), whose responses are then fetched again; temporary files are
/// left alone for an hour, in case another process is writing them.
///
/// **Recency.** Each store keeps an index of the files (size and last use) in memory, built from the directory when
/// it opens (last use is the file's modification date) and kept up to date by its own reads and writes, exactly. A
/// write gives the file the date of its use, and so does a hit, but at most once per ``useMarkInterval`` per file (a
/// `futimens` costs a few microseconds, as much as the rest of the file system's work for a hit): on disk, and so
/// for another store or after a restart, the order of uses is the order of their dates to within that interval.
///
/// **Several stores on one directory** (two performers, two processes) do not corrupt each other: writes are whole
/// files renamed into place (the last writer of a key wins), reads tolerate a file that vanishes or changes between
/// the index and the read, and a lookup reads the file even when the index does not know it, so one store answers
/// from what another wrote. Each store enforces the limit on the files it knows and re-reads the directory every
/// 256 writes, so together they stay near the limit rather than exactly under it; an eviction may remove a response
/// another store has just written, which costs a network request, never a wrong answer.
final class DiskResponseStore: Sendable {
    private struct Entry {
        var size: Int
        var lastUse: UInt64
        /// The modification date this store last saw the file have or gave it.
        var marked: Date
    }

    private struct Index {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var uses: UInt64 = 0
        var writesSinceScan = 0
    }

    /// The directory that holds the files.
    let directory: URL
    /// The directory's path and a slash, which a file's name completes.
    private let directoryPrefix: String
    /// The directory, open, so that a hit opens its file relative to it (`openat`) without the kernel walking the
    /// whole path again; -1 when it could not be opened.
    private let directoryDescriptor: Int32
    private let limit: Int
    /// How often at most a hit gives a file the date of its use, per file and store.
    let useMarkInterval: TimeInterval
    private let index = Locked(Index())
    /// The last modification date this store gave a file (see `nextUseDate()`).
    private let lastUseDate = Locked(Date.distantPast)

    /// The files' first bytes, which say what they are and in which format (eight, read as one word).
    private static let magic = Data("FETCHRS3".utf8)
    /// The length of the file's last field, its ``ContentHash``.
    private static var checksumLength: Int { 8 }
    /// The hexadecimal digits of a file's name.
    private static var nameDigits: Int { 32 }
    private static let suffix = ".response"
    private static let hexDigits = Set("0123456789abcdef".utf8)
    private static var rescanInterval: Int { 256 }
    private static var temporaryFileLifetime: TimeInterval { 3600 }

    /// Opens (creating it if needed) the store in `directory`, which should be the store's own.
    ///
    /// - Parameters:
    ///   - directory: The directory of the files.
    ///   - limit: The most bytes of files the store keeps.
    ///   - useMarkInterval: How often at most a hit gives a file the date of its use. The default is a second.
    /// - Throws: The file system's error when the directory cannot be created or listed.
    init(directory: URL, limit: Int, useMarkInterval: TimeInterval = 1) throws {
        self.directory = directory
        self.directoryPrefix = directory.path + "/"
        self.limit = limit
        self.useMarkInterval = useMarkInterval
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let scanned = try scan()
        index.withLock { index in
            index = scanned
            evict(&index)
        }
    }

    deinit {
        if directoryDescriptor >= 0 {
            close(directoryDescriptor)
        }
    }

    var bytes: Int {
        index.withLock { $0.bytes }
    }

    var count: Int {
        index.withLock { $0.entries.count }
    }

    func response(for key: String, matching request: URLRequest) -> StoredResponse? {
        let name = Self.fileName(for: key)
        let now = Date()
        let known = index.withLock { $0.entries[name] }
        let descriptor = openEntry(name)
        guard descriptor >= 0 else {
            index.withLock { forget(name, in: &$0) }
            return nil
        }
        defer { close(descriptor) }
        // One read of the size the index knows and a byte more (which notices a longer file) spares an `fstat`. A
        // file that does not decode so is read again, whole, with the size `fstat` gives, before it counts as
        // damaged: a read may return less than asked on some file systems.
        var contents = known.flatMap { Self.read(descriptor, upTo: $0.size + 1) }
        var response = contents.flatMap { Self.decode($0, key: key, url: request.url) }
        if response == nil {
            contents = Self.readWhole(descriptor)
            guard let contents else {
                index.withLock { forget(name, in: &$0) }
                return nil
            }
            response = Self.decode(contents, key: key, url: request.url)
        }
        guard let response, let contents, response.key == key else {
            removeFile(name)
            index.withLock { forget(name, in: &$0) }
            return nil
        }
        // The file's modification date records the use, for evictions after a restart or by another store, unless
        // it did less than `useMarkInterval` ago (or is in the future: the clock went back).
        var marked = known?.marked ?? .distantPast  // a file this store has not seen (another wrote it) is marked
        if !(0..<useMarkInterval).contains(now.timeIntervalSince(marked)) {
            marked = nextUseDate(now)
            Self.markUse(of: descriptor, at: marked)
        }
        index.withLock { index in
            // Another store may have written this file since this one last saw it.
            index.uses += 1
            index.bytes += contents.count - (index.entries[name]?.size ?? 0)
            index.entries[name] = Entry(size: contents.count, lastUse: index.uses, marked: marked)
        }
        return response.varies(from: request) ? nil : response
    }

    /// The file `name` opened for reading, relative to the open directory; by its path when the directory could not
    /// be opened or does not have it (it may have been replaced since). -1 when there is no such file.
    private func openEntry(_ name: String) -> Int32 {
        if directoryDescriptor >= 0 {
            let descriptor = openat(directoryDescriptor, name, O_RDONLY | O_CLOEXEC)
            guard descriptor < 0, errno == ENOENT else {
                return descriptor
            }
        }
        // A path made by hand: `URL.appendingPathComponent` costs as much as reading the file.
        return open(directoryPrefix + name, O_RDONLY | O_CLOEXEC)
    }

    private func removeFile(_ name: String) {
        try? FileManager.default.removeItem(atPath: directoryPrefix + name)  // nil: another store removed it first
    }

    /// The modification date to give a file used `now`: `now`, or later than the last one this store gave, so that
    /// uses within the file system's clock resolution (or the same millisecond) keep their order on disk.
    private func nextUseDate(_ now: Date = Date()) -> Date {
        lastUseDate.withLock { last in
            last = max(now, last.addingTimeInterval(0.001))
            return last
        }
    }

    /// Writes `response` to its file. A response whose file would exceed the whole limit is not stored, and one
    /// that cannot be written (a full disk, say) is not either: a cache that cannot store only costs requests.
    func insert(_ response: StoredResponse) {
        guard let contents = Self.encode(response) else {
            return
        }
        let name = Self.fileName(for: response.key)
        guard contents.count <= limit else {
            remove(response.key)
            return
        }
        let temporary = directory.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        let used = nextUseDate()
        do {
            try Self.writeNewFile(temporary, contents: contents, used: used)
            try Self.replace(directory.appendingPathComponent(name), with: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)  // nil: it was never created
            return
        }
        let rescan = index.withLock { index -> Bool in
            index.uses += 1
            index.bytes += contents.count - (index.entries[name]?.size ?? 0)
            index.entries[name] = Entry(size: contents.count, lastUse: index.uses, marked: used)
            index.writesSinceScan += 1
            return index.writesSinceScan >= Self.rescanInterval
        }
        if rescan, let scanned = try? scan() {  // nil: the directory cannot be listed; keep the index as it is
            index.withLock { index in
                index = merged(scanned, into: index)
            }
        }
        index.withLock { evict(&$0) }
    }

    func remove(_ key: String) {
        let name = Self.fileName(for: key)
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))  // nil: there was none
        index.withLock { forget(name, in: &$0) }
    }

    func removeAll() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []  // nil: none
        for name in names where Self.isEntryName(name) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))  // nil: already gone
        }
        index.withLock { $0 = Index() }
    }

    // MARK: - Index

    /// The store's files, oldest use first, with the directory's foreign files removed.
    private func scan() throws -> Index {
        let files = FileManager.default
        let names = try files.contentsOfDirectory(atPath: directory.path)
        var found: [(name: String, size: Int, modified: Date)] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            let attributes = try? files.attributesOfItem(atPath: path)  // nil: removed meanwhile
            let modified = attributes?[.modificationDate] as? Date ?? .distantPast
            guard attributes?[.type] as? FileAttributeType != .typeDirectory else {
                continue  // not a file the store could have written: leave it alone
            }
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                if -modified.timeIntervalSinceNow > Self.temporaryFileLifetime {
                    try? files.removeItem(atPath: path)  // nil: its writer renamed or removed it
                }
                continue
            }
            guard Self.isEntryName(name), let size = (attributes?[.size] as? NSNumber)?.intValue,
                size >= Self.magic.count + 4 + Self.checksumLength
            else {
                if attributes != nil {
                    try? files.removeItem(atPath: path)  // nil: removed meanwhile
                }
                continue
            }
            found.append((name, size, modified))
        }
        var index = Index()
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            index.uses += 1
            index.entries[file.name] = Entry(size: file.size, lastUse: index.uses, marked: file.modified)
            index.bytes += file.size
        }
        return index
    }

    /// The scanned files, with the recency this store knows for the ones it has used.
    private func merged(_ scanned: Index, into current: Index) -> Index {
        var result = Index()
        result.uses = current.uses
        for (name, entry) in scanned.entries {
            var merged = entry
            if let known = current.entries[name] {
                merged.lastUse = known.lastUse
                merged.marked = max(known.marked, entry.marked)
            }
            result.entries[name] = merged
            result.bytes += entry.size
        }
        return result
    }

    private func forget(_ name: String, in index: inout Index) {
        if let old = index.entries.removeValue(forKey: name) {
            index.bytes -= old.size
        }
    }

    /// Removes the least recently used files until the store fits its limit.
    private func evict(_ index: inout Index) {
        // Usually one file goes per write: a pass for the oldest is cheaper than sorting them all.
        while index.bytes > limit, let oldest = index.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(oldest.key))  // nil: gone already
            index.entries[oldest.key] = nil
            index.bytes -= oldest.value.size
        }
    }

    // MARK: - Files

    /// The name of the file for `key`: two ``ContentHash``es of it (128 bits), in hexadecimal, and the suffix. Not
    /// SHA-256, which cost a few microseconds on every lookup.
    static func fileName(for key: String) -> String {
        let hashes = (ContentHash.hash(key, seed: 1), ContentHash.hash(key, seed: 2))
        return String(unsafeUninitializedCapacity: nameDigits + suffix.utf8.count) { name in
            for digit in 0..<nameDigits {
                let hash = digit < 16 ? hashes.0 : hashes.1
                let nibble = Int(truncatingIfNeeded: hash &>> UInt64(60 &- 4 &* (digit & 15))) & 0x0f
                name[digit] = nibble < 10 ? UInt8(ascii: "0") &+ UInt8(nibble) : UInt8(ascii: "a") &+ UInt8(nibble - 10)
            }
            var end = nameDigits
            for byte in suffix.utf8 {
                name[end] = byte
                end += 1
            }
            return end
        }
    }

    private static func isEntryName(_ name: String) -> Bool {
        name.hasSuffix(suffix) && name.utf8.count == nameDigits + suffix.utf8.count
            && name.utf8.prefix(nameDigits).allSatisfy { Self.hexDigits.contains($0) }
    }

    /// The first bytes of the open file, up to `capacity`, in one `pread`; `nil` when it fails or fills `capacity`
    /// (the file may be longer). Plain POSIX calls: `Data(contentsOf:)` costs several times more on Linux, on every
    /// hit from disk.
    private static func read(_ descriptor: Int32, upTo capacity: Int) -> Data? {
        var contents = Data(count: capacity)
        let count = contents.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else {
                return -1
            }
            var count = pread(descriptor, base, capacity, 0)
            while count < 0, errno == EINTR {
                count = pread(descriptor, base, capacity, 0)
            }
            return count
        }
        guard count >= 0, count < capacity else {
            return nil
        }
        contents.count = count
        return contents
    }

    /// The whole contents of the open file, of the size `fstat` gives; `nil` when it cannot be read whole.
    private static func readWhole(_ descriptor: Int32) -> Data? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 0, status.st_size <= Int.max else {
            return nil
        }
        let size = Int(status.st_size)
        var contents = Data(count: size)
        let isWhole = contents.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else {
                return size == 0
            }
            var done = 0
            while done < size {
                let count = pread(descriptor, base + done, size - done, off_t(done))
                if count < 0, errno == EINTR {
                    continue
                }
                guard count > 0 else {
                    return false  // an error, or a file shorter than it was a moment ago
                }
                done += count
            }
            return true
        }
        return isWhole ? contents : nil
    }

    /// Sets the access and modification dates of the open file to `date`, best effort: they only order evictions
    /// after a restart.
    private static func markUse(of descriptor: Int32, at date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let time = timespec(
            tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1_000_000_000))
        let times = [time, time]
        _ = futimens(descriptor, times)
    }

    /// Writes `contents` to a file that must not exist yet, with plain POSIX calls (`Data.write(to:)` costs several
    /// times more on Linux, which matters for a store written on every cacheable response), and gives it `used` as
    /// its modification date.
    private static func writeNewFile(_ url: URL, contents: Data, used: Date) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        defer { close(descriptor) }
        try contents.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else {
                return
            }
            var written = 0
            while written < buffer.count {
                let count = write(descriptor, base + written, buffer.count - written)
                if count < 0 {
                    guard errno == EINTR else {
                        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    }
                    continue
                }
                written += count
            }
        }
        markUse(of: descriptor, at: used)
    }

    /// Replaces `destination` with `source` in one step (POSIX `rename`), which `FileManager.moveItem` does not do.
    private static func replace(_ destination: URL, with source: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// The file for `response` (format `FETCHRS3`): magic, metadata length (4 bytes, big-endian), metadata, body,
    /// and the ``ContentHash`` of all that (8 bytes, big-endian).
    ///
    /// The metadata is binary, not JSON: `JSONDecoder` was half of what a hit from disk cost. In order: the key, the
    /// status, the headers, the URL, the `Vary` values, the request and response times, the response's
    /// ``ResponseFreshness`` (so that a hit parses neither `Cache-Control` nor dates: a change to how freshness is
    /// worked out needs a new format), whether there is a body and its length, each as ``MetadataWriter`` writes it.
    ///
    /// The hash is not SHA-256 (`FETCHRS2`), which was a quarter of what a hit from disk cost: it detects any damage
    /// within one 8-byte word for certain and other damage all but certainly, and a truncated file fails the length
    /// checks before it.
    static func encode(_ response: StoredResponse) -> Data? {
        var metadata = MetadataWriter()
        metadata.string(response.key)
        metadata.integer(response.status)
        metadata.count(response.headers.count)
        for (name, value) in response.headers {
            metadata.string(name)
            metadata.string(value)
        }
        metadata.optionalString(response.url?.absoluteString)
        metadata.count(response.varyingValues.count)
        for (name, value) in response.varyingValues {
            metadata.string(name)
            metadata.optionalString(value)
        }
        metadata.date(response.requestTime)
        metadata.date(response.responseTime)
        let freshness = response.freshness
        metadata.flag(freshness.requiresRevalidation)
        metadata.seconds(freshness.lifetime)
        metadata.seconds(freshness.initialAge)
        metadata.flag(freshness.forbidsStaleUse)
        metadata.seconds(freshness.staleWhileRevalidate)
        metadata.seconds(freshness.staleIfError)
        metadata.flag(response.data != nil)
        metadata.integer(response.data?.count ?? 0)
        guard metadata.bytes.count <= Int(UInt32.max) else {
            return nil
        }
        var contents = magic
        contents.reserveCapacity(
            magic.count + 4 + metadata.bytes.count + (response.data?.count ?? 0) + checksumLength)
        withUnsafeBytes(of: UInt32(metadata.bytes.count).bigEndian) { contents.append(contentsOf: $0) }
        contents.append(contentsOf: metadata.bytes)
        if let body = response.data {
            contents.append(body)
        }
        let checksum = contents.withUnsafeBytes { ContentHash.hash($0) }
        withUnsafeBytes(of: checksum.bigEndian) { contents.append(contentsOf: $0) }
        return contents
    }

    /// The response in a file's contents, or `nil` when they are not a whole, intact file of this format.
    ///
    /// - Parameters:
    ///   - contents: The file's bytes.
    ///   - knownKey: The key the caller expects, used as the response's when it is the one stored rather than making
    ///     a string of the stored bytes.
    ///   - knownURL: A URL to use as the response's when it is the one stored (usually the request's), rather than
    ///     parsing the stored one again.
    /// - Returns: The stored response, or `nil`.
    static func decode(_ contents: Data, key knownKey: String? = nil, url knownURL: URL? = nil) -> StoredResponse? {
        contents.withUnsafeBytes { decode(file: $0, key: knownKey, url: knownURL) }
    }

    private static func decode(file: UnsafeRawBufferPointer, key knownKey: String?, url knownURL: URL?)
        -> StoredResponse?
    {
        let headerLength = magic.count + 4
        guard file.count >= headerLength + checksumLength,
            file.loadUnaligned(as: UInt64.self) == magic.withUnsafeBytes({ $0.loadUnaligned(as: UInt64.self) })
        else {
            return nil
        }
        let checked = file.count - checksumLength
        let checksum = UInt64(bigEndian: file.loadUnaligned(fromByteOffset: checked, as: UInt64.self))
        guard ContentHash.hash(UnsafeRawBufferPointer(rebasing: file[..<checked])) == checksum else {
            return nil
        }
        let metadataLength = Int(UInt32(bigEndian: file.loadUnaligned(fromByteOffset: magic.count, as: UInt32.self)))
        guard metadataLength <= checked - headerLength else {
            return nil
        }
        let bodyStart = headerLength + metadataLength
        var metadata = MetadataReader(UnsafeRawBufferPointer(rebasing: file[headerLength..<bodyStart]))
        let knownURLString = knownURL.flatMap { $0.baseURL == nil ? $0.relativeString : nil }
        guard let key = metadata.string(reusing: knownKey), let status = metadata.integer(),
            let headerCount = metadata.count()
        else {
            return nil
        }
        var headers: [String: String] = [:]
        headers.reserveCapacity(headerCount)
        for _ in 0..<headerCount {
            guard let name = metadata.string(), let value = metadata.string() else {
                return nil
            }
            headers[name] = value
        }
        guard let urlString = metadata.optionalString(reusing: knownURLString), let varyCount = metadata.count() else {
            return nil
        }
        var varyingValues: [String: String?] = [:]
        for _ in 0..<varyCount {
            guard let name = metadata.string(), let value = metadata.optionalString() else {
                return nil
            }
            varyingValues[name] = value
        }
        guard let requestTime = metadata.date(), let responseTime = metadata.date(),
            let requiresRevalidation = metadata.flag(), let lifetime = metadata.seconds(),
            let initialAge = metadata.seconds(), let forbidsStaleUse = metadata.flag(),
            let staleWhileRevalidate = metadata.seconds(), let staleIfError = metadata.seconds(),
            let hasBody = metadata.flag(), let bodyLength = metadata.integer(), metadata.isAtEnd,
            checked - bodyStart == bodyLength, hasBody || bodyLength == 0
        else {
            return nil
        }
        let url: URL?
        if let knownURL, let knownURLString, urlString == knownURLString {
            url = knownURL
        } else {
            url = urlString.flatMap(URL.init(string:))
        }
        return StoredResponse(
            key: key,
            status: status,
            headers: headers,
            data: hasBody ? file.baseAddress.map { Data(bytes: $0 + bodyStart, count: bodyLength) } ?? Data() : nil,
            url: url,
            varyingValues: varyingValues,
            requestTime: requestTime,
            responseTime: responseTime,
            freshness: ResponseFreshness(
                requiresRevalidation: requiresRevalidation,
                lifetime: lifetime,
                initialAge: initialAge,
                forbidsStaleUse: forbidsStaleUse,
                staleWhileRevalidate: staleWhileRevalidate,
                staleIfError: staleIfError
            )
        )
    }
}

/// Writes a file's metadata: strings as a 4-byte big-endian length and UTF-8, integers, seconds and dates as 8 bytes
/// big-endian (seconds as the bits of the `Double`, a date as those of its `timeIntervalSinceReferenceDate`), flags
/// as one byte.
private struct MetadataWriter {
    var bytes: [UInt8] = []

    mutating func integer(_ value: Int) {
        withUnsafeBytes(of: Int64(value).bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func count(_ value: Int) {
        withUnsafeBytes(of: UInt32(clamping: value).bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        count(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func flag(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    mutating func optionalString(_ value: String?) {
        flag(value != nil)
        if let value {
            string(value)
        }
    }

    mutating func seconds(_ value: TimeInterval) {
        withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func date(_ value: Date) {
        seconds(value.timeIntervalSinceReferenceDate)
    }
}

/// Reads what ``MetadataWriter`` wrote; each read is `nil` when the bytes run out or are not what it expects.
private struct MetadataReader {
    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var isAtEnd: Bool {
        offset == buffer.count
    }

    private mutating func take(_ length: Int) -> UnsafeRawBufferPointer? {
        guard length >= 0, buffer.count - offset >= length else {
            return nil
        }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)])
    }

    private mutating func bigEndian(_ length: Int) -> UInt64? {
        take(length)?.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func integer() -> Int? {
        bigEndian(8).map { Int(Int64(bitPattern: $0)) }
    }

    mutating func count() -> Int? {
        bigEndian(4).map { Int($0) }
    }

    mutating func flag() -> Bool? {
        switch take(1)?.first {
        case 0: false
        case 1: true
        default: nil
        }
    }

    /// A string; `known` itself when it has the same bytes, which spares making a new one.
    mutating func string(reusing known: String? = nil) -> String? {
        guard let length = count(), let bytes = take(length) else {
            return nil
        }
        if var known, known.utf8.count == length {
            let isSame = known.withUTF8 { knownBytes in
                guard let knownBase = knownBytes.baseAddress, let base = bytes.baseAddress else {
                    return length == 0
                }
                return memcmp(knownBase, base, length) == 0
            }
            if isSame {
                return known
            }
        }
        // The file's hash has been checked, so these are the bytes a String gave the writer.
        return String(decoding: bytes, as: UTF8.self)
    }

    mutating func optionalString(reusing known: String? = nil) -> String?? {
        switch flag() {
        case false: .some(nil)
        case true: string(reusing: known).map { .some($0) }
        default: nil
        }
    }

    mutating func seconds() -> TimeInterval? {
        bigEndian(8).map { Double(bitPattern: $0) }
    }

    mutating func date() -> Date? {
        seconds().map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}

// MARK: - ResponseStoring

extension DiskResponseStore: ResponseStoring {}
