import Fetch
import Foundation
import Testing

/// A download into a directory that does not exist fails at once, naming the call and the directory, and sends
/// nothing: otherwise the whole body would be transferred and then lost when it could not be moved into place.
@Suite struct DownloadDestinationTests {
    let server: TestServer
    let transfers: Session
    private let temporary: TemporaryDirectory

    init() throws {
        server = try TestServer.running()
        transfers = try transferPerformer(.urlSession)
        temporary = try TemporaryDirectory("download-destination")
    }

    enum Form: String, CaseIterable, Sendable {
        case plain
        case resuming
    }

    func download(_ form: Form, _ request: any Request, to destination: URL) async throws -> Response {
        switch form {
        case .plain:
            try await transfers.download(request, to: destination).value
        case .resuming:
            try await transfers.download(request, to: destination, resumption: DownloadResumption()).value
        }
    }

    @Test(arguments: Form.allCases)
    func aMissingDirectoryFailsBeforeAnythingIsSent(_ form: Form) async throws {
        let path = "/users/\(UUID().uuidString)"
        let missing = temporary.url.appending(path: "no-such-directory")
        let destination = missing.appending(path: "user.json")
        do {
            let response = try await download(form, TestRequest(server.url(path)), to: destination)
            Issue.record("expected the download to fail, got \(response.status)")
        } catch FetchError.invalidRequest(let reason) {
            #expect(reason.contains("GET \(server.url(path).absoluteString)"), "\(reason)")
            #expect(reason.contains("the directory \(missing.path) does not exist"), "\(reason)")
        }
        #expect(try await server.hits(path) == 0)
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test(arguments: Form.allCases)
    func aFileWhereTheDirectoryShouldBeFailsTheSameWay(_ form: Form) async throws {
        let path = "/users/\(UUID().uuidString)"
        let file = temporary.url.appending(path: "a-file")
        try Data("not a directory".utf8).write(to: file)
        do {
            _ = try await download(form, TestRequest(server.url(path)), to: file.appending(path: "user.json"))
            Issue.record("expected the download to fail")
        } catch FetchError.invalidRequest(let reason) {
            #expect(reason.contains("\(file.path) is a file, not a directory"), "\(reason)")
        }
        #expect(try await server.hits(path) == 0)
    }

    @Test(arguments: Form.allCases)
    func anExistingDirectoryIsDownloadedInto(_ form: Form) async throws {
        let destination = temporary.url.appending(path: "user-\(form.rawValue).json")
        _ = try await download(form, TestRequest(server.url("/users/1")), to: destination)
        #expect(FileManager.default.fileExists(atPath: destination.path))
    }
}
