import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The disk store's file format (`FETCHRS5`): names, the hash that catches damage, the stored freshness, files of
/// the previous format, and how a hit reads a file and marks its use.
@Suite struct DiskResponseStoreFormatTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func store(limit: Int = 1 << 20, useMarkInterval: TimeInterval = 1) throws -> DiskResponseStore {
        try DiskResponseStore(directory: directory.url, limit: limit, useMarkInterval: useMarkInterval)
    }

    func entryFile(_ path: String) -> URL {
        directory.url.appendingPathComponent(DiskResponseStore.fileName(for: "https://api.example.com\(path)"))
    }

    func lookUp(_ path: String, in store: DiskResponseStore) throws -> StoredResponse? {
        try store.response(for: "https://api.example.com\(path)", matching: StoredResponses.request(path))
    }

    func modificationDate(_ file: URL) throws -> Date {
        try #require(FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)
    }

    func setModificationDate(_ file: URL, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)
    }

    @Test func filesAreNamedByTheOwnerAndTwoHashesOfTheKeyAndStartWithTheFormat() throws {
        #expect(
            DiskResponseStore.fileName(for: "https://api.example.com/users/1")
                == "0000000000000000e7bacdf3ced9145b60eddf17024b60c1.response")
        let tag = "0123456789abcdef0123456789abcdef"
        let owned = DiskResponseStore.fileName(
            for: CacheKey.make(url: "https://api.example.com/users/1", identity: tag))
        #expect(owned.hasPrefix("0123456789abcdef") && owned.utf8.count == 48 + ".response".utf8.count)
        #expect(owned != DiskResponseStore.fileName(for: "https://api.example.com/users/1"))
        try store().insert(StoredResponses.make("/users/1"))
        let contents = try Data(contentsOf: entryFile("/users/1"))
        #expect(contents.prefix(8) == Data("FETCHRS5".utf8))
    }

    @Test func everyFlippedByteMakesTheFileUnreadable() throws {
        let contents = try #require(DiskResponseStore.encode(StoredResponses.make("/users/1")))
        try #require(DiskResponseStore.decode(contents) != nil)
        for index in contents.indices {
            var damaged = contents
            damaged[index] ^= 0x20
            #expect(DiskResponseStore.decode(damaged) == nil, "byte \(index) of \(contents.count)")
        }
    }

    @Test func everyTruncationAndAnAppendedByteMakeTheFileUnreadable() throws {
        let contents = try #require(DiskResponseStore.encode(StoredResponses.make("/users/1")))
        for length in 0..<contents.count {
            #expect(DiskResponseStore.decode(contents.prefix(length)) == nil, "cut to \(length) bytes")
        }
        #expect(DiskResponseStore.decode(contents + Data([0])) == nil)
    }

    /// A damaged file of the size the store expects takes the short read; one another store opens takes the
    /// whole read. Both skip it and remove it.
    @Test(arguments: ["metadata", "body"], [false, true])
    func aFlippedByteInTheMetadataOrBodyIsSkippedAndRemoved(region: String, reopen: Bool) throws {
        let body = String(repeating: "b", count: 300)
        let original = StoredResponses.make("/users/5", body: body)
        let writer = try store()
        writer.insert(original)
        #expect(try lookUp("/users/5", in: writer) != nil)
        let file = entryFile("/users/5")
        var contents = try Data(contentsOf: file)
        // Magic (8 bytes) and metadata length (4), metadata, body, hash (8).
        let index = region == "body" ? contents.count - 8 - body.utf8.count / 2 : 8 + 4 + 20
        contents[index] ^= 0x01
        try contents.write(to: file)

        let reader = reopen ? try store() : writer
        #expect(try lookUp("/users/5", in: reader) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(reader.count == 0)
        #expect(reader.bytes == 0)
    }

    @Test func filesOfThePreviousFormatsAreRemoved() throws {
        // FETCHRS2 files were named by the key's SHA-256, 64 digits, FETCHRS3 files by 32: removed when a store
        // opens, since they may keep credentials in clear for Vary.
        let encoded = try #require(DiskResponseStore.encode(StoredResponses.make("/users/1")))
        var oldFiles: [URL] = []
        for (magic, name) in [
            ("FETCHRS2", SHA256.hex(SHA256.hash(Data("https://api.example.com/users/1".utf8)))),
            ("FETCHRS3", "e7bacdf3ced9145b60eddf17024b60c1"),
        ] {
            var old = encoded
            old.replaceSubrange(0..<8, with: Data(magic.utf8))
            let file = directory.url.appendingPathComponent(name + ".response")
            try old.write(to: file)
            oldFiles.append(file)
        }
        // FETCHRS4 files have the current names, and may hold an API key in clear for Vary: removed when a store
        // opens.
        var previous = try #require(DiskResponseStore.encode(StoredResponses.make("/users/4")))
        previous.replaceSubrange(0..<8, with: Data("FETCHRS4".utf8))
        try previous.write(to: entryFile("/users/4"))
        try #require(chmod(entryFile("/users/4").path, 0o600) == 0, "as the store wrote its files")
        oldFiles.append(entryFile("/users/4"))
        // One at a current name is not indexed, and removed when met.
        var old = encoded
        old.replaceSubrange(0..<8, with: Data("FETCHRS3".utf8))
        try old.write(to: entryFile("/users/1"))
        try #require(chmod(entryFile("/users/1").path, 0o600) == 0, "as the store writes its files")

        let store = try store()
        for file in oldFiles {
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
        #expect(store.count == 0)
        #expect(try lookUp("/users/1", in: store) == nil)
        #expect(!FileManager.default.fileExists(atPath: entryFile("/users/1").path))
        #expect(store.count == 0)
    }

    @Test func aFileAnotherStoreMadeLongerOrShorterIsReadWhole() throws {
        let reader = try store()
        reader.insert(StoredResponses.make("/users/6", body: "short"))
        #expect(try lookUp("/users/6", in: reader)?.data == Data("short".utf8))

        let longBody = String(repeating: "l", count: 5000)
        try store().insert(StoredResponses.make("/users/6", body: longBody))
        #expect(try lookUp("/users/6", in: reader)?.data == Data(longBody.utf8))

        try store().insert(StoredResponses.make("/users/6", body: "tiny"))
        #expect(try lookUp("/users/6", in: reader)?.data == Data("tiny".utf8))
        #expect(reader.bytes == (try Data(contentsOf: entryFile("/users/6")).count))
    }

    @Test(arguments: [
        "max-age=60, stale-while-revalidate=30, stale-if-error=600",
        "must-revalidate",
        "no-cache",
    ])
    func theFreshnessReadBackIsTheOneWorkedOutFromTheHeaders(cacheControl: String) throws {
        let original = StoredResponses.make(
            "/users/7",
            headers: [
                "Cache-Control": cacheControl, "Date": "Thu, 01 Jan 2026 00:00:00 GMT",
                "Expires": "Thu, 01 Jan 2026 01:00:00 GMT", "Age": "12", "ETag": "\"7\"",
            ])
        try store().insert(original)
        let found = try #require(try lookUp("/users/7", in: store()))
        #expect(found.freshness == original.freshness)
        #expect(
            found.freshness
                == ResponseFreshness(
                    headers: found.headers, requestTime: found.requestTime, responseTime: found.responseTime))
        #expect(found.initialAge >= 12)
        #expect(found.freshnessLifetime == (cacheControl.hasPrefix("max-age") ? 60 : 3600))
    }

    @Test func theStoredURLIsReadBackWhetherOrNotTheCallerKnowsIt() throws {
        let original = StoredResponses.make("/users/8")
        let contents = try #require(DiskResponseStore.encode(original))
        let other = try #require(URL(string: "https://other.example.com/"))
        #expect(DiskResponseStore.decode(contents)?.url == original.url)
        #expect(DiskResponseStore.decode(contents, url: other)?.url == original.url)
        #expect(DiskResponseStore.decode(contents, key: "another key", url: original.url)?.key == original.key)
    }

    @Test func aHitMarksAnOldFileAsJustUsedAndNotAgainWithinTheInterval() throws {
        try store().insert(StoredResponses.make("/users/9"))
        let file = entryFile("/users/9")
        let hourAgo = Date().addingTimeInterval(-3600)
        try setModificationDate(file, hourAgo)

        let reader = try store(useMarkInterval: 600)
        let before = Date()
        #expect(try lookUp("/users/9", in: reader) != nil)
        #expect(try modificationDate(file) >= before.addingTimeInterval(-1))

        let earlier = Date().addingTimeInterval(-60)
        try setModificationDate(file, earlier)
        #expect(try lookUp("/users/9", in: reader) != nil)
        #expect(abs(try modificationDate(file).timeIntervalSince(earlier)) < 1, "marked less than 600 s ago")
    }

    @Test func aHitMarksAFileAnotherStoreWroteSinceThisOneOpened() throws {
        let reader = try store(useMarkInterval: 600)
        try store().insert(StoredResponses.make("/users/10"))
        let file = entryFile("/users/10")
        try setModificationDate(file, Date().addingTimeInterval(-3600))

        let before = Date()
        #expect(try lookUp("/users/10", in: reader) != nil)
        #expect(try modificationDate(file) >= before.addingTimeInterval(-1))
    }

    @Test func aHitAfterARestartKeepsTheFileOverOnesUsedBefore() throws {
        let size = try #require(DiskResponseStore.encode(StoredResponses.make("/a"))).count
        let first = try store()
        first.insert(StoredResponses.make("/a"))
        first.insert(StoredResponses.make("/b"))
        try setModificationDate(entryFile("/a"), Date().addingTimeInterval(-120))
        try setModificationDate(entryFile("/b"), Date().addingTimeInterval(-60))

        #expect(try lookUp("/a", in: store()) != nil)
        let smaller = try store(limit: size)

        #expect(smaller.count == 1)
        #expect(FileManager.default.fileExists(atPath: entryFile("/a").path))
        #expect(!FileManager.default.fileExists(atPath: entryFile("/b").path))
    }
}
