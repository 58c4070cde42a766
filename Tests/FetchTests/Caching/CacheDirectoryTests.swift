import FetchTesting
import Foundation
import SpawnSupport
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

/// ``CacheDirectory``: a disk cache uses a directory only when it is the user's own (no symbolic link, the process's
/// user's, writable by no one else once tightened), trusts a salt file only when it is the user's alone, and never
/// serves a response file someone else could have planted.
@Suite struct CacheDirectoryTests {
    let directory: TemporaryDirectory
    static let url = "https://api.example.com/profile"

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The message of the ``FetchError/invalidRequest(_:)`` that `make` throws.
    static func refusal(_ make: () throws -> Any) throws -> String {
        do {
            _ = try make()
        } catch let error as FetchError where error.code == .invalidRequest {
            guard case .invalidRequest(let message) = error.kind else {
                return ""
            }
            return message
        }
        Issue.record("the cache was made, or failed otherwise")
        return ""
    }

    static func mode(_ path: String) throws -> mode_t {
        var status = stat()
        try #require(lstat(path, &status) == 0, "lstat \(path)")
        return status.st_mode & 0o7777
    }

    /// A response file for `url` whose body is `body`, as the store would write it.
    static func plantedFile(body: String) throws -> Data {
        let stored = StoredResponse(
            key: url, status: 200, headers: ["Cache-Control": "max-age=600"], data: Data(body.utf8),
            url: URL(string: url), varyingValues: [:], requestTime: Date(), responseTime: Date())
        return try #require(DiskResponseStore.encode(stored))
    }

    /// A network that answers `{"from":"network"}` and counts its calls.
    static func network() -> SpyPerformer {
        SpyPerformer(
            forwardingTo: MockPerformer { _ in
                MockResponse(headers: ["Cache-Control": "max-age=600"], data: Data(#"{"from":"network"}"#.utf8))
            })
    }

    static func body(_ performer: CachedPerformer) throws -> String {
        let result = Captured<Result<Data, any Error>>()
        performer.perform(TestRequest(url), completion: result.capture)
        return String(decoding: try #require(result.value).get(), as: UTF8.self)
    }

    @Test func aSymbolicLinkToADirectoryIsRefusedAndNotFollowed() throws {
        let target = directory.url.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        let link = directory.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        let message = try Self.refusal { try ResponseCache(directory: link) }

        #expect(message.contains(link.path) && message.contains("symbolic link"), "\(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty, "nothing written through it")
    }

    @Test func aDirectoryGroupOrOthersMayWriteToIsMade0700Before() throws {
        let open = directory.url.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        try Data("the user's notes".utf8).write(to: open.appendingPathComponent("notes.txt"))
        try #require(chmod(open.path, 0o777) == 0)

        _ = try ResponseCache(directory: open)

        #expect(try Self.mode(open.path) == 0o700)
    }

    @Test(arguments: [0o644, 0o604, 0o660, 0o600])
    func aResponseFileOthersMayReadOrWriteIsNeverServed(mode: Int) throws {
        _ = try ResponseCache(directory: directory.url)  // the salt, as a first run leaves it
        let file = directory.url.appendingPathComponent(DiskResponseStore.fileName(for: Self.url))
        try Self.plantedFile(body: #"{"from":"planted"}"#).write(to: file)
        try #require(chmod(file.path, mode_t(mode)) == 0)
        let network = Self.network()
        let performer = try CachedPerformer(network, ResponseCache(directory: directory.url, maximumBytes: 0))

        let body = try Self.body(performer)

        if mode == 0o600 {
            #expect(body == #"{"from":"planted"}"#, "the control: a file of the store's own is served")
            #expect(network.calls.isEmpty)
        } else {
            #expect(body == #"{"from":"network"}"#, "mode \(String(mode, radix: 8)): not served")
            #expect(network.calls.count == 1)
        }
    }

    @Test(arguments: ["mode", "link"])
    func aSaltFileOthersCouldHaveChosenOrReadIsRefused(flaw: String) throws {
        _ = try ResponseCache(directory: directory.url)
        let salt = directory.url.appendingPathComponent(DiskResponseStore.saltFileName)
        let elsewhere = try TemporaryDirectory()
        switch flaw {
        case "mode":
            try #require(chmod(salt.path, 0o644) == 0)
        default:
            let planted = elsewhere.url.appendingPathComponent("salt")
            try FileManager.default.moveItem(at: salt, to: planted)
            try FileManager.default.createSymbolicLink(at: salt, withDestinationURL: planted)
        }

        let message = try Self.refusal { try ResponseCache(directory: directory.url) }

        #expect(message.contains(salt.path), "\(message)")
        #expect(message.contains(flaw == "mode" ? "0644" : "symbolic link"), "\(message)")
    }

    @Test func aPathThatIsAFileIsRefused() throws {
        let file = directory.url.appendingPathComponent("file")
        try Data().write(to: file)
        let message = try Self.refusal { try ResponseCache(directory: file) }
        #expect(message.contains(file.path) && message.contains("not a directory"), "\(message)")
    }
}

/// Another Unix user's directory, salt and responses, planted for this user's cache: never trusted. It needs root
/// (to make the other user and give it files), as CI runs.
@Suite(.serialized) struct CacheDirectoryOtherUserTests {
    static let otherUserName = "fetch-cache-other"

    /// Runs `/usr/sbin/<tool>` with `arguments`; its exit status.
    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/\(tool)")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try Spawn.run(process)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The other user's id, making the user if it does not exist yet; and whether this call made it (to remove it).
    static func otherUser() throws -> (uid: uid_t, gid: gid_t, made: Bool) {
        var made = false
        if getpwnam(otherUserName) == nil {
            try #require(
                try run("useradd", ["--system", "--no-create-home", otherUserName]) == 0, "useradd \(otherUserName)")
            made = true
        }
        let entry = try #require(getpwnam(otherUserName), "the user \(otherUserName)")
        try #require(entry.pointee.pw_uid != geteuid())
        return (entry.pointee.pw_uid, entry.pointee.pw_gid, made)
    }

    /// Gives `url` to the other user, with `mode`.
    static func give(_ url: URL, to user: (uid: uid_t, gid: gid_t, made: Bool), mode: mode_t) throws {
        try #require(chown(url.path, user.uid, user.gid) == 0, "chown \(url.path)")
        try #require(chmod(url.path, mode) == 0, "chmod \(url.path)")
    }

    @Test(
        .enabled(
            if: geteuid() == 0,
            "needs root, to make a second Unix user (useradd) and give it files (chown); CI runs as root"))
    func anotherUsersDirectorySaltAndResponsesAreNeverTrusted() throws {
        let user = try Self.otherUser()
        defer {
            if user.made {
                do {
                    #expect(try Self.run("userdel", [Self.otherUserName]) == 0, "userdel \(Self.otherUserName)")
                } catch {
                    Issue.record(error, "userdel \(Self.otherUserName)")
                }
            }
        }
        let directory = try TemporaryDirectory()
        // The other user's cache directory, as that user would leave it: 0700, a salt and a fresh response of its
        // choosing, all 0600 and its own.
        let theirs = directory.url.appendingPathComponent("theirs")
        _ = try ResponseCache(directory: theirs)
        let response = theirs.appendingPathComponent(DiskResponseStore.fileName(for: CacheDirectoryTests.url))
        try CacheDirectoryTests.plantedFile(body: #"{"from":"planted"}"#).write(to: response)
        let salt = theirs.appendingPathComponent(DiskResponseStore.saltFileName)
        for file in [salt, response] {
            try Self.give(file, to: user, mode: 0o600)
        }
        try Self.give(theirs, to: user, mode: 0o700)

        let message = try CacheDirectoryTests.refusal { try ResponseCache(directory: theirs) }
        #expect(message.contains(theirs.path) && message.contains("owned by user \(user.uid)"), "\(message)")

        // This user's own directory with the other user's salt in it: refused too.
        let mine = directory.url.appendingPathComponent("mine")
        _ = try ResponseCache(directory: mine)
        let mySalt = mine.appendingPathComponent(DiskResponseStore.saltFileName)
        try Self.give(mySalt, to: user, mode: 0o600)
        let saltMessage = try CacheDirectoryTests.refusal { try ResponseCache(directory: mine) }
        #expect(
            saltMessage.contains(mySalt.path) && saltMessage.contains("owned by user \(user.uid)"), "\(saltMessage)")

        // This user's own directory and salt with the other user's response file in it: not served, not removed.
        try #require(chown(mySalt.path, geteuid(), getegid()) == 0)
        let planted = mine.appendingPathComponent(DiskResponseStore.fileName(for: CacheDirectoryTests.url))
        try CacheDirectoryTests.plantedFile(body: #"{"from":"planted"}"#).write(to: planted)
        try Self.give(planted, to: user, mode: 0o600)
        let network = CacheDirectoryTests.network()
        let performer = try CachedPerformer(network, ResponseCache(directory: mine, maximumBytes: 0))
        #expect(try CacheDirectoryTests.body(performer) == #"{"from":"network"}"#)
        #expect(network.calls.count == 1)
        #expect(FileManager.default.fileExists(atPath: planted.path), "someone else's file is left alone")
    }
}
