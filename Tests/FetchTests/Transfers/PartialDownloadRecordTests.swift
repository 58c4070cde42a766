import Foundation
import Testing

@testable import Fetch

/// The size a download checks its finished file against, and an upload sends as its length, is that of a regular file
/// only: a symbolic link is not followed, and a directory or nothing at all has no size.
@Suite struct PartialDownloadRecordTests {
    private let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("partial-download-record")
    }

    @Test func fileSizeIsARegularFilesLengthAndNothingElses() throws {
        let file = temporary.url.appending(path: "body")
        try Data(repeating: 7, count: 12_345).write(to: file)
        #expect(PartialDownloadRecord.fileSize(file) == 12_345)

        let empty = temporary.url.appending(path: "empty")
        try Data().write(to: empty)
        #expect(PartialDownloadRecord.fileSize(empty) == 0)

        let link = temporary.url.appending(path: "link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        #expect(PartialDownloadRecord.fileSize(link) == nil)

        #expect(PartialDownloadRecord.fileSize(temporary.url) == nil)
        #expect(PartialDownloadRecord.fileSize(temporary.url.appending(path: "missing")) == nil)
    }
}
