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
/// **Files.** Each response is one file, `<owner><hash of the key>.response`: 16 hexadecimal digits of the tag of
/// the credentials it was fetched with (zeros for none, see ``CacheKey``), then 32 of two ``ContentHash``es of the
/// key. It holds a magic number, the metadata (status, headers, URL, `Vary` values, times, freshness) in a small
/// binary layout, the body, and a ``ContentHash`` of all of it (see ``encode(_:)``). A file is written under a
/// temporary name (`.<name>.<UUID>.tmp`) and renamed into place, so a reader sees a whole file or none. A file that
/// is truncated, corrupt, of an older format or of another key is never served, and removed when met. The hash
/// guards against damage (a cut write, a bad sector, a stray edit), not against someone who can write the
/// directory: they could write a matching hash as well. Two keys whose names collide only replace each other's
/// file, since the key stored in the file is compared on every read. Files of the previous formats (`FETCHRS4`,
/// named as now; `FETCHRS3`, 32 digits; `FETCHRS2`, named by the SHA-256 of the key) are removed when the store
/// opens the directory, and their responses fetched again: they may hold credentials in clear (for `Vary`, or in a
/// URL).
///
/// **Only its own files.** The store removes only files it can prove are its own: a regular file (never a symbolic
/// link, never a directory) with its name pattern and one of its magic numbers; a temporary file only by its exact
/// name pattern, and only an hour old, in case another process is writing it. Anything else in the directory is
/// left as it is, and never served. Files are created 0600 and opened without following symbolic links; the
/// directory is created 0700, and an existing one made 0700 when it holds nothing but the store's files (one that
/// holds anything else is the user's, and keeps its mode; the store's files in it are 0600 all the same).
///
/// **The salt.** `.fetch-cache-salt` (0600) holds the random salt of ``CacheIdentity``'s tags, made when the store
/// first opens the directory, so that entries keep their owners across launches.
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
package final class DiskResponseStore: Sendable {
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
    /// whole path again.
    private let directoryDescriptor: Int32
    private let limit: Int
    /// How often at most a hit gives a file the date of its use, per file and store.
    let useMarkInterval: TimeInterval
    private let index = Locked(Index())
    /// The last modification date this store gave a file (see `nextUseDate()`).
    private let lastUseDate = Locked(Date.distantPast)

    /// The files' first bytes, which say what they are and in which format (eight, read as one word).
    private static let magic = Data("FETCHRS5".utf8)
    /// The magic numbers of the previous formats, whose files the store removes.
    private static let oldMagics = [Data("FETCHRS4".utf8), Data("FETCHRS3".utf8), Data("FETCHRS2".utf8)]
    /// The file that holds the salt of the credentials' tags, and the first bytes of its contents.
    static let saltFileName = ".fetch-cache-salt"
    private static let saltMagic = Data("FETCHSLT".utf8)
    /// The random salt of ``CacheIdentity``'s tags of this directory.
    let salt: [UInt8]
    /// The tags of this directory's credentials, keyed by ``salt``: of the secrets the store was opened with.
    let identity: CacheIdentity
    /// The length of the file's last field, its ``ContentHash``.
    private static var checksumLength: Int { 8 }
    /// The hexadecimal digits of a file's name: 16 of the owner, 32 of the key.
    private static var nameDigits: Int { 48 }
    /// The digits of the owner in a file's name.
    private static var ownerDigits: Int { 16 }
    /// The hexadecimal digits of the names of the previous formats' files (`FETCHRS3`, `FETCHRS2`; `FETCHRS4` files
    /// have the current names).
    private static let oldNameDigits: Set<Int> = [32, 64]
    private static let suffix = ".response"
    private static let hexDigits = Set("0123456789abcdef".utf8)
    private static var rescanInterval: Int { 256 }
    private static var temporaryFileLifetime: TimeInterval { 3600 }

    /// Opens (creating it if needed) the store in `directory`, which should be the store's own and must be the
    /// user's (see ``CacheDirectory``).
    ///
    /// - Parameters:
    ///   - directory: The directory of the files.
    ///   - limit: The most bytes of files the store keeps.
    ///   - useMarkInterval: How often at most a hit gives a file the date of its use. The default is a second.
    ///   - secrets: The names of header fields and query parameters whose values ``identity`` tags, besides
    ///     ``Redaction``'s defaults.
    /// - Throws: ``FetchError/invalidRequest(_:)`` when the directory or its salt file is not the user's own (see
    ///   ``CacheDirectory``); the file system's error when the directory cannot be created or listed.
    init(directory: URL, limit: Int, useMarkInterval: TimeInterval = 1, secrets: Redaction = .default) throws {
        self.directory = directory
        self.directoryPrefix = directory.path + "/"
        self.limit = limit
        self.useMarkInterval = useMarkInterval
        let (descriptor, created) = try CacheDirectory.openOwn(directory)
        directoryDescriptor = descriptor
        do {
            salt = try Self.salt(in: directory, descriptor: descriptor)
        } catch {
            close(descriptor)  // `deinit` does not run for a store not made
            throw error
        }
        identity = CacheIdentity(salt: salt, secrets: secrets)
        let scanned = try scan()
        if !created, scanned.holdsOnlyOwnFiles {
            _ = fchmod(descriptor, 0o700)  // best effort: the files are 0600 whatever the directory's mode
        }
        index.withLock { index in
            index = scanned.index
            evict(&index)
        }
    }

    /// The salt kept in `directory` (open as `descriptor`), made now if there is none. A salt file that cannot be
    /// read or written, or that is not of the store's format, gives a salt for this store alone: responses fetched
    /// with credentials are then not found by later stores, which costs requests, never a wrong answer.
    ///
    /// - Throws: ``FetchError/invalidRequest(_:)`` when the salt file is a symbolic link, another user's, or open to
    ///   group or others: someone else may have chosen it, or read it.
    private static func salt(in directory: URL, descriptor: Int32) throws -> [UInt8] {
        let path = directory.appendingPathComponent(saltFileName).path
        if let existing = try readSalt(in: directory, descriptor: descriptor) {
            return existing
        }
        let salt = CacheIdentity.randomSalt()
        let temporary = directory.appendingPathComponent(".\(saltFileName).\(UUID().uuidString).tmp")
        do {
            try writeNewFile(temporary, contents: saltMagic + Data(salt), used: Date())
        } catch {
            return salt  // a read-only directory: this store's own salt
        }
        defer { unlink(temporary.path) }
        // `link` fails when the file exists: of two stores making it at once, both end up with the winner's. A file
        // system without hard links (FAT) gets a rename, which cannot tell a race.
        if link(temporary.path, path) == 0 || (errno != EEXIST && rename(temporary.path, path) == 0) {
            return salt
        }
        return try readSalt(in: directory, descriptor: descriptor) ?? salt
    }

    /// The salt in the salt file of `directory` (open as `directoryDescriptor`), or `nil` when there is none, or it
    /// cannot be read or is not of the store's format.
    ///
    /// - Throws: ``FetchError/invalidRequest(_:)`` when the salt file is not the user's own.
    private static func readSalt(in directory: URL, descriptor directoryDescriptor: Int32) throws -> [UInt8]? {
        let path = directory.appendingPathComponent(saltFileName).path
        let descriptor = openat(directoryDescriptor, saltFileName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            var status = stat()
            let isLink =
                code == ELOOP
                || (fstatat(directoryDescriptor, saltFileName, &status, AT_SYMLINK_NOFOLLOW) == 0
                    && status.st_mode & S_IFMT == S_IFLNK)
            if isLink {
                throw CacheDirectory.refusal(
                    directory.path, "its salt file \(path) is a symbolic link, which Fetch does not follow")
            }
            return nil  // none yet, or unreadable: a salt of this store's own
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            return nil
        }
        if let problem = CacheDirectory.problem(with: status) {
            throw CacheDirectory.refusal(directory.path, "its salt file \(path) cannot be trusted: \(problem)")
        }
        let length = saltMagic.count + CacheIdentity.saltLength
        guard let contents = read(descriptor, upTo: length + 1), contents.count == length,
            contents.prefix(saltMagic.count) == saltMagic
        else {
            return nil
        }
        return Array(contents.dropFirst(saltMagic.count))
    }

    deinit {
        close(directoryDescriptor)
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
        // The URL as the key holds it, credentials tagged: the request's when the response is stored under it.
        let urlText = String(CacheKey.url(in: key))
        var response = contents.flatMap { Self.decode($0, key: key, url: request.url, storedAs: urlText) }
        if response == nil {
            contents = Self.readWhole(descriptor)
            guard let contents else {
                index.withLock { forget(name, in: &$0) }
                return nil
            }
            response = Self.decode(contents, key: key, url: request.url, storedAs: urlText)
        }
        guard let response, let contents, response.key == key else {
            removeOwnFile(name)  // a damaged file of the store's; someone else's file at its name stays
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

    /// The file `name` opened for reading, relative to the open directory; by its path when the directory does not
    /// have it (it may have been replaced since). -1 when there is no such file, or when it is not a regular file of
    /// the user's that only the user may read and write: a file planted there (another user's, or one whose mode
    /// lets others read or change it) is never served.
    private func openEntry(_ name: String) -> Int32 {
        var descriptor = openat(directoryDescriptor, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if descriptor < 0, errno == ENOENT {
            // A path made by hand: `URL.appendingPathComponent` costs as much as reading the file.
            descriptor = open(directoryPrefix + name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        }
        guard descriptor >= 0 else {
            return -1
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, CacheDirectory.isOwnersOnly(status) else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    /// Removes the file `name` if it is the store's own: a regular file that starts with one of the store's magic
    /// numbers (the caller has checked the name). Anything else there is left alone.
    @discardableResult
    private func removeOwnFile(_ name: String) -> Bool {
        let path = directoryPrefix + name
        guard Self.ownMagic(at: path) != nil else {
            return false
        }
        return unlink(path) == 0  // false: another store removed it first
    }

    /// The magic number of the regular file at `path` when it is one of the store's (current or old, and the user's),
    /// else `nil`.
    private static func ownMagic(at path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            return nil
        }
        defer { close(descriptor) }
        var status = stat()
        var first = [UInt8](repeating: 0, count: magic.count)
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == geteuid(),
            pread(descriptor, &first, first.count, 0) == first.count
        else {
            return nil
        }
        let found = Data(first)
        return found == magic || oldMagics.contains(found) ? found : nil
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
    @discardableResult
    func insert(_ response: StoredResponse) -> Bool {
        guard let contents = Self.encode(response, maskingURLWith: identity) else {
            return false
        }
        let name = Self.fileName(for: response.key)
        guard contents.count <= limit else {
            remove(response.key)
            return false
        }
        // A file at the name that this store did not write or index may be someone else's: replace only the store's.
        // Looked at in this order, a file another store renames into place meanwhile is seen whole, not missed by
        // the magic check and then found by the existence check.
        if index.withLock({ $0.entries[name] == nil }), Self.exists(directoryPrefix + name),
            Self.ownMagic(at: directoryPrefix + name) == nil
        {
            return false
        }
        let temporary = directory.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        let used = nextUseDate()
        do {
            try Self.writeNewFile(temporary, contents: contents, used: used)
            try Self.replace(directory.appendingPathComponent(name), with: temporary)
        } catch {
            unlink(temporary.path)  // fails only when it was never created
            return false
        }
        let rescan = index.withLock { index -> Bool in
            index.uses += 1
            index.bytes += contents.count - (index.entries[name]?.size ?? 0)
            index.entries[name] = Entry(size: contents.count, lastUse: index.uses, marked: used)
            index.writesSinceScan += 1
            return index.writesSinceScan >= Self.rescanInterval
        }
        let known = rescan ? index.withLock { Set($0.entries.keys) } : []
        if rescan, let scanned = try? scan(known: known) {  // nil: the directory cannot be listed; keep the index
            index.withLock { index in
                index = merged(scanned.index, into: index)
            }
        }
        index.withLock { evict(&$0) }
        return true
    }

    func remove(_ key: String) {
        let name = Self.fileName(for: key)
        removeOwnFile(name)
        index.withLock { forget(name, in: &$0) }
    }

    func removeAll() {
        removeEntries { _ in true }
        index.withLock { $0 = Index() }
    }

    func removeAll(identifiedBy tag: String) {
        let owner = String(tag.prefix(Self.ownerDigits))
        let removed = removeEntries { $0.hasPrefix(owner) }
        index.withLock { index in
            for name in removed {
                forget(name, in: &index)
            }
        }
    }

    /// Removes the store's files (of the current format) whose names `matches` accepts; returns their names.
    @discardableResult
    private func removeEntries(where matches: (String) -> Bool) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []  // nil: none
        var removed: [String] = []
        for name in names where Self.isEntryName(name) && matches(name) {
            removeOwnFile(name)  // false: already gone, or not the store's
            removed.append(name)
        }
        return removed
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    // MARK: - Index

    /// The store's files, oldest use first, and whether the directory holds nothing else. Files of the previous
    /// formats and abandoned temporary files are removed; anything that is not the store's is left alone. Files the
    /// index knows already (`known`) are taken as the store's without reading them again.
    private func scan(known: Set<String> = []) throws -> (index: Index, holdsOnlyOwnFiles: Bool) {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        var found: [(name: String, size: Int, modified: Date)] = []
        var holdsOnlyOwnFiles = true
        for name in names {
            let path = directoryPrefix + name
            var status = stat()
            guard lstat(path, &status) == 0 else {
                continue  // removed meanwhile
            }
            let isFile = (status.st_mode & S_IFMT) == S_IFREG
            let modified = Self.modificationDate(status)
            if isFile, Self.isTemporaryName(name) {
                if -modified.timeIntervalSinceNow > Self.temporaryFileLifetime {
                    unlink(path)  // fails only when its writer renamed or removed it meanwhile
                }
                continue
            }
            if isFile, name == Self.saltFileName {
                continue
            }
            if CacheDirectory.isOwnersOnly(status), Self.isEntryName(name),
                known.contains(name) || Self.ownMagic(at: path) == Self.magic
            {
                found.append((name, Int(clamping: max(0, status.st_size)), modified))
                continue
            }
            if isFile, Self.isEntryName(name) || Self.isOldEntryName(name),
                let found = Self.ownMagic(at: path), found != Self.magic
            {
                unlink(path)  // a file of a previous format: its response is fetched again
                continue
            }
            holdsOnlyOwnFiles = false  // someone else's: never served, never removed
        }
        var index = Index()
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            index.uses += 1
            index.entries[file.name] = Entry(size: file.size, lastUse: index.uses, marked: file.modified)
            index.bytes += file.size
        }
        return (index, holdsOnlyOwnFiles)
    }

    private static func modificationDate(_ status: stat) -> Date {
        #if canImport(Darwin)
            let time = status.st_mtimespec
        #else
            let time = status.st_mtim
        #endif
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
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
            removeOwnFile(oldest.key)  // false: gone already, or replaced by a file that is not the store's
            index.entries[oldest.key] = nil
            index.bytes -= oldest.value.size
        }
    }

    // MARK: - Files

    /// The name of the file for `key`: the first 16 digits of the tag of its credentials (zeros for none), two
    /// ``ContentHash``es of it (128 bits), in hexadecimal, and the suffix. Not SHA-256, which cost a few
    /// microseconds on every lookup.
    static func fileName(for key: String) -> String {
        let hashes = (ContentHash.hash(key, seed: 1), ContentHash.hash(key, seed: 2))
        let owner = CacheKey.tag(in: key)?.utf8.prefix(ownerDigits)
        return String(unsafeUninitializedCapacity: nameDigits + suffix.utf8.count) { name in
            var end = 0
            if let owner {
                for byte in owner {
                    name[end] = byte
                    end += 1
                }
            } else {
                for _ in 0..<ownerDigits {
                    name[end] = UInt8(ascii: "0")
                    end += 1
                }
            }
            for digit in 0..<(nameDigits - ownerDigits) {
                let hash = digit < 16 ? hashes.0 : hashes.1
                let nibble = Int(truncatingIfNeeded: hash &>> UInt64(60 &- 4 &* (digit & 15))) & 0x0f
                name[end] = nibble < 10 ? UInt8(ascii: "0") &+ UInt8(nibble) : UInt8(ascii: "a") &+ UInt8(nibble - 10)
                end += 1
            }
            for byte in suffix.utf8 {
                name[end] = byte
                end += 1
            }
            return end
        }
    }

    private static func isEntryName(_ name: String) -> Bool {
        isHexName(name, digits: nameDigits)
    }

    private static func isOldEntryName(_ name: String) -> Bool {
        oldNameDigits.contains { isHexName(name, digits: $0) }
    }

    /// `digits` lowercase hexadecimal digits and the suffix.
    private static func isHexName(_ name: String, digits: Int) -> Bool {
        name.hasSuffix(suffix) && name.utf8.count == digits + suffix.utf8.count
            && name.utf8.prefix(digits).allSatisfy { Self.hexDigits.contains($0) }
    }

    /// The name of a temporary file the store writes: `.<entry name or the salt file's>.<UUID>.tmp`.
    private static func isTemporaryName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        // "", then the name's parts, the UUID, "tmp"
        guard parts.count >= 4, parts.first == "", parts.last == "tmp",
            UUID(uuidString: String(parts[parts.count - 2])) != nil
        else {
            return false
        }
        let base = parts[1..<(parts.count - 2)].joined(separator: ".")
        return isEntryName(base) || isOldEntryName(base) || base == saltFileName
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
            tv_sec: WireNumber.clampedInteger(seconds),
            tv_nsec: WireNumber.clampedInteger(
                (date.timeIntervalSince1970 - seconds) * 1_000_000_000, in: 0...999_999_999))
        let times = [time, time]
        _ = futimens(descriptor, times)
    }

    /// Writes `contents` to a file that must not exist yet, with plain POSIX calls (`Data.write(to:)` costs several
    /// times more on Linux, which matters for a store written on every cacheable response), and gives it `used` as
    /// its modification date.
    private static func writeNewFile(_ url: URL, contents: Data, used: Date) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        defer { close(descriptor) }
        _ = fchmod(descriptor, 0o600)  // exactly 0600, whatever the umask took away
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

    /// The file for `response` (format `FETCHRS5`): magic, metadata length (4 bytes, big-endian), metadata, body,
    /// and the ``ContentHash`` of all that (8 bytes, big-endian).
    ///
    /// `FETCHRS5` has the layout and names of `FETCHRS4`; what changed is what it holds: every secret header field
    /// that `Vary` names (not only `Authorization`, `Cookie` and `Proxy-Authorization`) is kept as its tag, and the
    /// key and the URL have their user info and secret query values tagged (``CacheIdentity``). `FETCHRS4` had the
    /// layout of `FETCHRS3`; it put the tag of the credentials in the key (``CacheKey``) and the owner's digits in
    /// the name, and clamped freshness values. Each new magic makes the store remove the older files, which may hold
    /// an API key or a bearer token in clear, or an `Age: 1e300`. The header fields are a list in their order, a
    /// repeated name once per field, as the format always wrote them (it is read the same way).
    ///
    /// The metadata is binary, not JSON: `JSONDecoder` was half of what a hit from disk cost. In order: the key, the
    /// status, the headers, the URL, the `Vary` values, the request and response times, the response's
    /// ``ResponseFreshness`` (so that a hit parses neither `Cache-Control` nor dates: a change to how freshness is
    /// worked out needs a new format), whether there is a body and its length, each as ``MetadataWriter`` writes it.
    ///
    /// The hash is not SHA-256 (`FETCHRS2`), which was a quarter of what a hit from disk cost: it detects any damage
    /// within one 8-byte word for certain and other damage all but certainly, and a truncated file fails the length
    /// checks before it.
    package static func encode(_ response: StoredResponse) -> Data? {
        encode(response, maskingURLWith: nil)
    }

    /// The file for `response`, as ``encode(_:)`` lays it out, with the credentials in its URL tagged.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - identity: The identity whose tags replace the credentials in the response's URL (user info, secret query
    ///     parameters), as in its key; `nil` keeps the URL as it is.
    /// - Returns: The file's contents, or `nil` when the metadata does not fit the format.
    static func encode(_ response: StoredResponse, maskingURLWith identity: CacheIdentity?) -> Data? {
        var metadata = MetadataWriter()
        metadata.string(response.key)
        metadata.integer(response.status)
        metadata.count(response.headers.count)
        for (name, value) in response.headers {
            metadata.string(name)
            metadata.string(value)
        }
        // A URL whose credentials cannot be found is not kept: the response is read back without one.
        metadata.optionalString(
            response.url.flatMap { url in identity.map { $0.maskedURL(url)?.text } ?? url.absoluteString })
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

    /// The response in a file's contents, or `nil` when they are not a whole, intact file of this format, or when
    /// its numbers are out of their ranges: a status outside 100...599, a date more than ``maximumDateOffset`` from
    /// 2001, a duration outside ``ResponseFreshness/range`` (the file is outside input too: another version, another
    /// program, or an older Fetch that kept `Age: 1e300` as it came).
    ///
    /// - Parameters:
    ///   - contents: The file's bytes.
    ///   - knownKey: The key the caller expects, used as the response's when it is the one stored rather than making
    ///     a string of the stored bytes.
    ///   - knownURL: A URL to use as the response's when it is the one stored (usually the request's), rather than
    ///     parsing the stored one again.
    ///   - knownURLText: The text `knownURL` is stored as: its credentials tagged (``CacheIdentity/maskedURL(_:)``),
    ///     as in the key. `nil`: `knownURL`'s own text.
    /// - Returns: The stored response, or `nil`.
    package static func decode(
        _ contents: Data, key knownKey: String? = nil, url knownURL: URL? = nil, storedAs knownURLText: String? = nil
    ) -> StoredResponse? {
        contents.withUnsafeBytes { decode(file: $0, key: knownKey, url: knownURL, storedAs: knownURLText) }
    }

    private static func decode(
        file: UnsafeRawBufferPointer, key knownKey: String?, url knownURL: URL?, storedAs knownURLText: String?
    ) -> StoredResponse? {
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
        guard
            let metadataLength = Int(
                exactly: UInt32(bigEndian: file.loadUnaligned(fromByteOffset: magic.count, as: UInt32.self))),
            metadataLength <= checked - headerLength
        else {
            return nil
        }
        let bodyStart = headerLength + metadataLength
        var metadata = MetadataReader(UnsafeRawBufferPointer(rebasing: file[headerLength..<bodyStart]))
        let knownURLString = knownURLText ?? knownURL.flatMap { $0.baseURL == nil ? $0.relativeString : nil }
        guard let key = metadata.string(reusing: knownKey), let status = metadata.integer(),
            let headerCount = metadata.count()
        else {
            return nil
        }
        var headers: [(name: String, value: String)] = []
        // A count is outside input too: reserve no more than the bytes left could hold (8 per field at least).
        headers.reserveCapacity(min(headerCount, metadata.remainingCount / 8))
        for _ in 0..<headerCount {
            guard let name = metadata.string(), let value = metadata.string() else {
                return nil
            }
            headers.append((name, value))
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
        let freshness = ResponseFreshness(
            requiresRevalidation: requiresRevalidation,
            lifetime: lifetime,
            initialAge: initialAge,
            forbidsStaleUse: forbidsStaleUse,
            staleWhileRevalidate: staleWhileRevalidate,
            staleIfError: staleIfError
        )
        guard (100...599).contains(status), freshness.isValid, Self.isValidDate(requestTime),
            Self.isValidDate(responseTime)
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
            headers: HeaderFields(headers),
            data: hasBody ? file.baseAddress.map { Data(bytes: $0 + bodyStart, count: bodyLength) } ?? Data() : nil,
            url: url,
            varyingValues: varyingValues,
            requestTime: requestTime,
            responseTime: responseTime,
            freshness: freshness
        )
    }

    /// How far from 2001 a stored date may lie, in seconds: about 3,000 years either way.
    package static var maximumDateOffset: TimeInterval { 1e11 }

    private static func isValidDate(_ date: Date) -> Bool {
        (-maximumDateOffset...maximumDateOffset).contains(date.timeIntervalSinceReferenceDate)
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

    /// The bytes not read yet.
    var remainingCount: Int {
        buffer.count - offset
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

    /// An 8-byte integer; `nil` where it does not fit an `Int` (a 32-bit platform).
    mutating func integer() -> Int? {
        bigEndian(8).flatMap { Int(exactly: Int64(bitPattern: $0)) }
    }

    /// A 4-byte count; `nil` where it does not fit an `Int` (a 32-bit platform).
    mutating func count() -> Int? {
        bigEndian(4).flatMap { Int(exactly: $0) }
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
