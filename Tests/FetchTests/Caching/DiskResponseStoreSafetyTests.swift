import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The disk store in someone's directory: it touches only files it can prove are its own, its files are 0600 in a
/// 0700 directory whatever the umask, it follows no symbolic link, and a file's numbers are checked like a server's.
@Suite struct DiskResponseStoreSafetyTests {
    let directory: TemporaryDirectory
    static let childVariable = "FETCH_DISK_STORE_MODES_CHILD"

    init() throws {
        directory = try TemporaryDirectory()
    }

    static func mode(_ path: String) throws -> mode_t {
        var status = stat()
        try #require(lstat(path, &status) == 0, "lstat \(path)")
        return status.st_mode & 0o7777
    }

    static func entryName(_ path: String) -> String {
        DiskResponseStore.fileName(for: "https://api.example.com\(path)")
    }

    @Test func theUsersFilesSymlinksAndLookalikesSurviveOpeningWritingEvictingAndRemoving() throws {
        let outside = try TemporaryDirectory()
        let fm = FileManager.default
        try #require(chmod(directory.url.path, 0o755) == 0)
        let own = try #require(DiskResponseStore.encode(StoredResponses.make("/linked")))
        let target = outside.url.appendingPathComponent("target.response")
        try own.write(to: target)
        var oldFormat = own
        oldFormat.replaceSubrange(0..<8, with: Data("FETCHRS3".utf8))
        let oldTarget = outside.url.appendingPathComponent("old.response")
        try oldFormat.write(to: oldTarget)

        let tag = "0123456789abcdef0123456789abcdef"
        let userFiles: [(name: String, contents: Data)] = [
            ("notes.txt", Data("the user's notes".utf8)),
            (Self.entryName("/lookalike"), Data("NOTMINE! right name, wrong magic, long enough to be read".utf8)),
            (
                DiskResponseStore.fileName(for: CacheKey.make(url: "https://api.example.com/x", identity: tag)),
                Data("NOTMINE! a user's file under an owner's prefix".utf8)
            ),
            ("e7bacdf3ced9145b60eddf17024b60c1.response", Data("an old name, not an old magic".utf8)),
            (".draft.tmp", Data("an editor's temporary file".utf8)),
            ("0000000000000000e7bacdf3ced9145b60eddf17024b60c1.response.bak", own),
        ]
        for file in userFiles {
            try file.contents.write(to: directory.url.appendingPathComponent(file.name))
        }
        try fm.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7200)],
            ofItemAtPath: directory.url.appendingPathComponent(".draft.tmp").path)
        try fm.createDirectory(at: directory.url.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try Data("a photo".utf8).write(to: directory.url.appendingPathComponent("photos/1.jpg"))
        // Symbolic links at the store's own names, to files that are the store's format: never followed.
        let links = [
            (Self.entryName("/linked"), target), ("0123456789abcdef0123456789abcdef.response", oldTarget),
        ]
        for (name, destination) in links {
            try fm.createSymbolicLink(
                atPath: directory.url.appendingPathComponent(name).path, withDestinationPath: destination.path)
        }

        let size = own.count
        let store = try DiskResponseStore(directory: directory.url, limit: size * 3)
        #expect(store.count == 0)
        #expect(
            try store.response(for: "https://api.example.com/linked", matching: StoredResponses.request("/linked"))
                == nil)
        #expect(
            try store.response(
                for: "https://api.example.com/lookalike", matching: StoredResponses.request("/lookalike"))
                == nil)
        store.insert(StoredResponses.make("/linked"))
        store.insert(StoredResponses.make("/lookalike"))
        for index in 0..<10 {
            store.insert(StoredResponses.make("/filler/\(index)"))  // evicts
        }
        store.removeAll(identifiedBy: tag)
        store.removeAll(identifiedBy: "0000000000000000")
        store.removeAll()

        for file in userFiles {
            #expect(
                try Data(contentsOf: directory.url.appendingPathComponent(file.name)) == file.contents, "\(file.name)")
        }
        #expect(try Data(contentsOf: directory.url.appendingPathComponent("photos/1.jpg")) == Data("a photo".utf8))
        for (name, destination) in links {
            let path = directory.url.appendingPathComponent(name).path
            #expect(try fm.destinationOfSymbolicLink(atPath: path) == destination.path, "\(name) is still a link")
        }
        #expect(try Data(contentsOf: target) == own)
        #expect(try Data(contentsOf: oldTarget) == oldFormat)
        #expect(
            try Set(fm.contentsOfDirectory(atPath: directory.url.path))
                == Set(userFiles.map(\.name) + links.map(\.0) + ["photos", DiskResponseStore.saltFileName]))
        #expect(try Self.mode(directory.url.path) & 0o077 != 0, "a directory with the user's files keeps its mode")
    }

    @Test func filesAre0600AndTheDirectory0700AfterWritesAndRewritesEvenUnderAPermissiveUmask() async throws {
        guard
            try await ChildTestRun.isChild(
                running:
                    "DiskResponseStoreSafetyTests/filesAre0600AndTheDirectory0700AfterWritesAndRewritesEvenUnderAPermissiveUmask",
                marking: Self.childVariable, within: .seconds(120))
        else {
            return
        }
        let previous = umask(0)  // a process of its own: no other test's files are made meanwhile
        defer { umask(previous) }
        let fm = FileManager.default

        // A directory the store makes, its parents too.
        let made = directory.url.appendingPathComponent("a/b/cache")
        let store = try DiskResponseStore(directory: made, limit: 1 << 20)
        store.insert(StoredResponses.make("/users/1"))
        let entry = made.appendingPathComponent(Self.entryName("/users/1")).path
        #expect(try Self.mode(made.path) == 0o700)
        #expect(try Self.mode(entry) == 0o600)
        #expect(try Self.mode(made.appendingPathComponent(DiskResponseStore.saltFileName).path) == 0o600)
        store.insert(StoredResponses.make("/users/1", body: "rewritten"))
        #expect(try Self.mode(entry) == 0o600, "after a rewrite")
        #expect(try Self.mode(made.path) == 0o700)

        // An existing 0755 directory that holds nothing but the store's files (an older Fetch's): made 0700.
        let older = directory.url.appendingPathComponent("older")
        try fm.createDirectory(at: older, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        var oldFile = try #require(DiskResponseStore.encode(StoredResponses.make("/users/1")))
        oldFile.replaceSubrange(0..<8, with: Data("FETCHRS3".utf8))
        try oldFile.write(to: older.appendingPathComponent("e7bacdf3ced9145b60eddf17024b60c1.response"))
        _ = try DiskResponseStore(directory: older, limit: 1 << 20)
        #expect(try Self.mode(older.path) == 0o700)

        // An existing 0755 directory with the user's files: its mode is the user's, the store's files are 0600.
        let shared = directory.url.appendingPathComponent("shared")
        try fm.createDirectory(at: shared, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data("mine".utf8).write(to: shared.appendingPathComponent("notes.txt"))
        let inShared = try DiskResponseStore(directory: shared, limit: 1 << 20)
        inShared.insert(StoredResponses.make("/users/2"))
        inShared.insert(StoredResponses.make("/users/2", body: "again"))
        #expect(try Self.mode(shared.path) == 0o755)
        #expect(try Self.mode(shared.appendingPathComponent(Self.entryName("/users/2")).path) == 0o600)
        #expect(try Self.mode(shared.appendingPathComponent(DiskResponseStore.saltFileName).path) == 0o600)
    }

    @Test func theSaltIsMadeOnceAndSharedByEveryStoreOfTheDirectory() throws {
        let first = try DiskResponseStore(directory: directory.url, limit: 1 << 20)
        let second = try DiskResponseStore(directory: directory.url, limit: 1 << 20)
        #expect(first.salt.count == CacheIdentity.saltLength)
        #expect(first.salt == second.salt)
        #expect(try DiskResponseStore(directory: TemporaryDirectory().url, limit: 1 << 20).salt != first.salt)
    }

    @Test(arguments: [
        "initialAge 1e300", "initialAge inf", "lifetime nan", "lifetime -1e300", "staleIfError -1",
        "staleWhileRevalidate inf", "status 9999", "status -1", "requestTime 1e300", "responseTime nan",
    ])
    func aFileWhoseNumbersAreOutOfRangeIsNotServedAndRemoved(poison: String) throws {
        let parts = poison.split(separator: " ")
        let field = String(parts[0])
        let value = try #require(Double(String(parts[1])))
        let good = StoredResponses.make("/poisoned")
        var freshness = good.freshness
        switch field {
        case "initialAge": freshness.initialAge = value
        case "lifetime": freshness.lifetime = value
        case "staleIfError": freshness.staleIfError = value
        case "staleWhileRevalidate": freshness.staleWhileRevalidate = value
        default: break
        }
        let dateOf = { (name: String, date: Date) in field == name ? Date(timeIntervalSinceReferenceDate: value) : date
        }
        let poisoned = StoredResponse(
            key: good.key, status: field == "status" ? Int(value) : good.status, headers: good.headers,
            data: good.data, url: good.url, varyingValues: good.varyingValues,
            requestTime: dateOf("requestTime", good.requestTime),
            responseTime: dateOf("responseTime", good.responseTime),
            freshness: freshness)
        let contents = try #require(DiskResponseStore.encode(poisoned))
        #expect(DiskResponseStore.decode(contents) == nil)
        #expect(DiskResponseStore.decode(try #require(DiskResponseStore.encode(good))) != nil)

        let store = try DiskResponseStore(directory: directory.url, limit: 1 << 20)
        let file = directory.url.appendingPathComponent(Self.entryName("/poisoned"))
        try contents.write(to: file)
        try #require(chmod(file.path, 0o600) == 0, "as the store writes its files")
        #expect(try store.response(for: good.key, matching: StoredResponses.request("/poisoned")) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path), "the store's own file, damaged: removed")
    }

    @Test(arguments: ["1e300", "inf", "-1", "99999999999999999999", "nan", "12, 13"])
    func freshnessFromAnyAgeIsWithinRange(age: String) {
        let freshness = ResponseFreshness(
            headers: ["Age": age, "Cache-Control": "max-age=99999999999999999999, stale-if-error=1e9"],
            requestTime: StoredResponses.requestTime, responseTime: StoredResponses.requestTime)
        #expect(freshness.isValid)
        #expect(freshness.lifetime == ResponseFreshness.maximum)
        #expect(freshness.staleIfError == 0)
        #expect(
            freshness.initialAge
                == (age == "99999999999999999999" ? ResponseFreshness.maximum : age == "12, 13" ? 12 : 0))
    }

    @Test func theFuzzSeedsAreFilesOfTheFormatOnceSealedWithTheirHash() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Fuzz/Corpus/DiskResponseFile")
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
        #expect(names.count >= 3)
        for name in names {
            var sealed = try Data(contentsOf: corpus.appending(path: name))
            let hash = sealed.withUnsafeBytes { ContentHash.hash($0) }
            withUnsafeBytes(of: hash.bigEndian) { sealed.append(contentsOf: $0) }
            // Each seed reaches the end of the decoder: a valid file, or (by its name) one refused for its numbers.
            #expect((DiskResponseStore.decode(sealed) == nil) == name.hasPrefix("out-of-range"), "\(name)")
        }
    }
}
