import Foundation
import Testing

@testable import Fetch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one check of a path a user hands Fetch (a download's destination, an upload's source, a HAR file): a regular
/// file or nothing, named plainly.
@Suite struct FilePathCheckTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("file-path-check")
    }

    @Test func aRegularFileOrNothingIsAcceptedForWritingAndOnlyAFileForReading() throws {
        let file = directory.url.appending(path: "file.bin")
        try Data("x".utf8).write(to: file)
        let missing = directory.url.appending(path: "missing.bin")

        #expect(FilePathCheck.problem(with: file, for: .writing) == nil)
        #expect(FilePathCheck.problem(with: file, for: .reading) == nil)
        #expect(FilePathCheck.problem(with: missing, for: .writing) == nil)
        #expect(FilePathCheck.problem(with: missing, for: .reading) == "there is no file there")
    }

    @Test func aURLThatIsNotAFileURLIsRefusedAndShownWhole() throws {
        let web = try #require(URL(string: "https://example.com/file.bin"))
        #expect(FilePathCheck.problem(with: web, for: .writing) == "it is not a file URL")
        #expect(FilePathCheck.shown(web) == "https://example.com/file.bin")
    }

    @Test func aPipeIsNotARegularFile() throws {
        let fifo = directory.url.appending(path: "pipe")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        #expect(FilePathCheck.problem(with: fifo, for: .writing) == "it is not a regular file")
        #expect(FilePathCheck.problem(with: fifo, for: .reading) == "it is not a regular file")
    }

    @Test func aRelativePathIsShownAsGivenWithItsDotDot() throws {
        let relative = URL(fileURLWithPath: "some/dir/../file.bin")
        let problem = try #require(FilePathCheck.problem(with: relative, for: .writing))
        #expect(problem.contains("\"..\" component"))
        #expect(FilePathCheck.shown(relative) == "some/dir/../file.bin")
    }

    @Test func aDotComponentIsFoundAfterASlashThatACombiningMarkFollows() throws {
        // Swift reads "/" and U+0301 as one Character; the kernel still splits the path at the "/".
        let hidden = URL(fileURLWithPath: directory.url.path + "/./\u{301}file.bin")
        let problem = try #require(FilePathCheck.problem(with: hidden, for: .writing))
        #expect(problem.contains("\".\" component"))
        #expect(
            FilePathCheck.problem(with: directory.url.appending(path: "a.b/..c/.../file.bin"), for: .writing) == nil)
    }

    @Test func aDirectoryIsShownWithItsSlash() {
        #expect(FilePathCheck.shown(directory.url.appending(path: "new/")) == directory.url.path + "/new/")
        #expect(FilePathCheck.shown(directory.url.appending(path: "file.bin")) == directory.url.path + "/file.bin")
    }
}
