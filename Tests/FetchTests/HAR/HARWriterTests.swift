import Fetch
import Foundation
import Testing

/// Runs code under the umask 0, which lets every file be made with the mode its creator asks for (0666 for
/// `FileManager`), one caller at a time: the umask is the process's, so two tests that set and restore it at once
/// could leave it at 0. Another test that creates a file meanwhile only gets a more open mode.
enum PermissiveUmask {
    private static let lock = NSLock()

    static func around<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        let previous = umask(0)
        defer {
            umask(previous)
            lock.unlock()
        }
        return try body()
    }
}

/// Writing HAR files: every append leaves a valid file, concurrent appends each add one entry.
@Suite struct HARWriterTests {
    private let temporary: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory("HARWriterTests")
    }

    func entry(_ index: Int) -> HAR.Entry {
        HAR.Entry(
            startedDateTime: Date(timeIntervalSince1970: 1_796_028_132 + Double(index)),
            request: HAR.SentRequest(method: "GET", url: "http://h.test/items/\(index)"),
            response: HAR.ReceivedResponse(
                status: 200, statusText: "OK",
                content: HAR.Content(size: 2, mimeType: "application/json", text: "{}")),
            timings: .total(0.001))
    }

    @Test func theFileIsValidHARAfterTheFirstAppend() throws {
        let file = directory.appendingPathComponent("first.har")
        let writer = try HARWriter(file: file)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        try writer.append(entry(0))
        let archive = try HAR(contentsOf: file)
        #expect(archive.log.entries == [entry(0)])
        #expect(archive.log.creator == .fetch)
        let verdict = try HARValidator.check(file)
        #expect(verdict.isValid, "\(verdict.output)")
    }

    @Test func twoHundredConcurrentAppendsGiveTwoHundredEntriesAndAValidFile() async throws {
        let file = directory.appendingPathComponent("concurrent.har")
        let writer = try HARWriter(file: file)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { try writer.append(entry(index)) }
            }
            try await group.waitForAll()
        }
        let archive = try HAR(contentsOf: file)
        #expect(archive.log.entries.count == 200)
        #expect(Set(archive.log.entries.map(\.request.url)).count == 200)
        let verdict = try HARValidator.check(file)
        #expect(verdict.isValid, "\(verdict.output)")
        #expect(verdict.output.contains("200 entries"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0 != "concurrent.har"
        }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    @Test func everyVersionOfTheFileAReaderSeesIsValid() async throws {
        let file = directory.appendingPathComponent("watched.har")
        let writer = try HARWriter(file: file)
        try writer.append(entry(0))
        let reads = Task.detached {
            var counts: [Int] = []
            for _ in 0..<300 {
                counts.append(try HAR(contentsOf: file).log.entries.count)
            }
            return counts
        }
        for index in 1..<100 {
            try writer.append(entry(index))
        }
        let counts = try await reads.value
        #expect(counts.allSatisfy { (1...100).contains($0) })
        #expect(try HAR(contentsOf: file).log.entries.count == 100)
    }

    @Test func opensAnExistingArchiveAndAppendsAfterItsEntries() throws {
        let file = directory.appendingPathComponent("existing.har")
        var existing = HAR(creator: HAR.Creator(name: "Firefox", version: "140"))
        existing.log.entries = [entry(0), entry(1)]
        try existing.encoded().write(to: file)
        let writer = try HARWriter(file: file)
        try writer.append(entry(2))
        let archive = try HAR(contentsOf: file)
        #expect(archive.log.entries == [entry(0), entry(1), entry(2)])
        #expect(archive.log.creator.name == "Firefox")
    }

    @Test func refusesToWriteOverAFileThatIsNotHAR() throws {
        let file = directory.appendingPathComponent("notes.har")
        try Data("[\"not\", \"har\"]".utf8).write(to: file)
        let error = try #require(throws: HARError.self) { try HARWriter(file: file) }
        #expect(error.file == file)
        #expect(try Data(contentsOf: file) == Data("[\"not\", \"har\"]".utf8))
    }

    @Test func startingOverReplacesTheArchiveAtTheFirstAppend() throws {
        let file = directory.appendingPathComponent("fresh.har")
        try Data("{".utf8).write(to: file)
        let writer = try HARWriter(file: file, startingOver: true)
        try writer.append(entry(7))
        #expect(try HAR(contentsOf: file).log.entries == [entry(7)])
    }

    @Test func aFailedWriteKeepsNeitherTheEntryNorATemporaryFile() throws {
        let file = directory.appendingPathComponent("gone/missing-directory.har")
        let writer = try HARWriter(file: file)
        #expect(throws: HARError.self) { try writer.append(entry(0)) }
        #expect(writer.archive.log.entries.isEmpty)
    }

    func mode(of file: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue)
    }

    @Test func theFileIsOwnerOnlyAfterTheFirstWriteAndEveryRewriteWhateverTheUmask() throws {
        let file = directory.appendingPathComponent("private.har")
        let writer = try HARWriter(file: file)
        try PermissiveUmask.around { try writer.append(entry(0)) }
        #expect(try mode(of: file) == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try PermissiveUmask.around { try writer.append(entry(1)) }
        #expect(try mode(of: file) == 0o600)
        #expect(try HAR(contentsOf: file).log.entries == [entry(0), entry(1)])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".tmp")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aFileTheUserMadeOwnerOnlyStaysOwnerOnlyWhenAnotherWriterAppends() throws {
        let file = directory.appendingPathComponent("kept.har")
        var archive = HAR()
        archive.log.entries = [entry(0)]
        try archive.encoded().write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        try PermissiveUmask.around { try HARWriter(file: file).append(entry(1)) }
        #expect(try mode(of: file) == 0o600)
        #expect(try HAR(contentsOf: file).log.entries == [entry(0), entry(1)])
    }

    @Test func aSymbolicLinkAtThePathIsRefusedEvenWhenStartingOverAndItsTargetIsLeftAlone() throws {
        let victim = directory.appendingPathComponent("victim.har")
        var archive = HAR()
        archive.log.entries = [entry(0)]
        let original = try archive.encoded()
        try original.write(to: victim)
        let file = directory.appendingPathComponent("linked.har")
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: victim)

        for startingOver in [false, true] {
            let error = try #require(throws: HARError.self) { try HARWriter(file: file, startingOver: startingOver) }
            #expect(error.description.contains("\(file.path): cannot be recorded into: it is a symbolic link"))
        }
        #expect(try Data(contentsOf: victim) == original)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file.path) == victim.path)
    }

    @Test func aLinkPlantedAfterTheWriterOpenedIsReplacedNotWrittenThrough() throws {
        let victim = directory.appendingPathComponent("planted-victim.har")
        let original = Data("the victim's own".utf8)
        try original.write(to: victim)
        let file = directory.appendingPathComponent("planted.har")
        let writer = try HARWriter(file: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: victim)

        try writer.append(entry(1))
        #expect(try Data(contentsOf: victim) == original)
        #expect(
            try FileManager.default.attributesOfItem(atPath: file.path)[.type] as? FileAttributeType == .typeRegular)
        #expect(try HAR(contentsOf: file).log.entries == [entry(1)])
    }

    @Test(arguments: ["dir", "dir/", "dir/sub/..", "dir/."])
    func aPathThatNamesADirectoryIsRefusedAndTheDirectoryIsLeftAlone(_ relative: String) throws {
        let parent = directory.appendingPathComponent("layout-\(UUID().uuidString)")
        let inner = parent.appendingPathComponent("dir/sub")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: inner.appendingPathComponent("keep.txt"))
        let file = parent.appending(path: relative)

        for startingOver in [false, true] {
            let error = try #require(throws: HARError.self) { try HARWriter(file: file, startingOver: startingOver) }
            #expect(error.description.contains("cannot be recorded into"), "\(error)")
        }
        #expect(try Data(contentsOf: inner.appendingPathComponent("keep.txt")) == Data("kept".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["dir"])
    }
}
