import Fetch
import Foundation
import Testing

/// A download into a directory that does not exist fails at once, naming the call and the directory, and sends
/// nothing: otherwise the whole body would be transferred and then lost when it could not be moved into place. A
/// destination that is a directory, a symbolic link, or a path with `/`, `.` or `..` where a file name should be, is
/// refused the same way, on both transports, and everything there stays as it was.
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
        } catch let error as FetchError where error.code == .invalidRequest {
            guard case .invalidRequest(let reason) = error.kind else {
                return
            }
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
        } catch let error as FetchError where error.code == .invalidRequest {
            guard case .invalidRequest(let reason) = error.kind else {
                return
            }
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

    /// A destination that is not a file Fetch may replace, as a test lays it out under `parent`.
    enum Refused: String, CaseIterable, Sendable {
        /// `parent/dir`, an existing directory with a file in it.
        case directory
        /// `parent/dir/`.
        case directoryWithSlash
        /// `parent/new/`: nothing there yet, but the path names a directory.
        case missingWithSlash
        /// `parent/dir/sub/..`, which names `dir`.
        case dotDot
        /// `parent/dir/.`.
        case dot
        /// `parent/link`, a symbolic link to `parent/dir/keep.txt`.
        case symbolicLinkToFile
        /// `parent/link`, a symbolic link to `parent/dir`.
        case symbolicLinkToDirectory

        /// What the error must say of the destination.
        var reason: String {
            switch self {
            case .directory, .directoryWithSlash: "it is a directory"
            case .missingWithSlash: "ends in \"/\""
            case .dotDot: "has a \"..\" component"
            case .dot: "has a \".\" component"
            case .symbolicLinkToFile, .symbolicLinkToDirectory: "it is a symbolic link"
            }
        }
    }

    /// Lays out `parent/dir/keep.txt` and `parent/dir/sub/inner.txt` (and the link the case needs) and returns
    /// the destination.
    static func layOut(_ refused: Refused, in parent: URL) throws -> URL {
        let files = FileManager.default
        let directory = parent.appending(path: "dir")
        try files.createDirectory(at: directory.appending(path: "sub"), withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: directory.appending(path: "keep.txt"))
        try Data("inner".utf8).write(to: directory.appending(path: "sub/inner.txt"))
        let link = parent.appending(path: "link")
        switch refused {
        case .directory:
            return directory
        case .directoryWithSlash:
            return parent.appending(path: "dir/")
        case .missingWithSlash:
            return parent.appending(path: "new/")
        case .dotDot:
            return directory.appending(path: "sub").appending(path: "..")
        case .dot:
            return directory.appending(path: ".")
        case .symbolicLinkToFile:
            try files.createSymbolicLink(at: link, withDestinationURL: directory.appending(path: "keep.txt"))
            return link
        case .symbolicLinkToDirectory:
            try files.createSymbolicLink(at: link, withDestinationURL: directory)
            return link
        }
    }

    /// Everything under `url`, as relative paths with their contents (`nil` for a directory or a link's target).
    static func snapshot(_ url: URL) throws -> [String: String] {
        var found: [String: String] = [:]
        let files = FileManager.default
        for path in try files.subpathsOfDirectory(atPath: url.path) {
            let item = url.appending(path: path)
            let type = try files.attributesOfItem(atPath: item.path)[.type] as? FileAttributeType
            switch type {
            case .typeRegular?:
                found[path] = String(decoding: try Data(contentsOf: item), as: UTF8.self)
            case .typeSymbolicLink?:
                found[path] = "-> " + (try files.destinationOfSymbolicLink(atPath: item.path))
            default:
                found[path] = "directory"
            }
        }
        return found
    }

    @Test(arguments: SessionTransport.allCases, Refused.allCases)
    func aDestinationThatIsNotAFileIsRefusedBeforeAnythingIsSentAndNothingThereChanges(
        _ transport: SessionTransport, _ refused: Refused
    ) async throws {
        let session = try transferPerformer(transport)
        for form in Form.allCases {
            let parent = temporary.url.appending(path: "\(transport.rawValue)-\(refused.rawValue)-\(form.rawValue)")
            let destination = try Self.layOut(refused, in: parent)
            let before = try Self.snapshot(parent)
            // A route that answers 200: the download would get as far as moving its file into place.
            let path = "/echo/\(UUID().uuidString)"
            let request = TestRequest(server.url(path))
            do {
                let transfer =
                    form == .plain
                    ? session.download(request, to: destination)
                    : session.download(request, to: destination, resumption: DownloadResumption())
                let response = try await transfer.value
                Issue.record("\(form): expected the download to be refused, got \(response.status)")
            } catch let error as FetchError where error.code == .invalidRequest {
                guard case .invalidRequest(let reason) = error.kind else {
                    return
                }
                #expect(reason.contains("GET \(server.url(path).absoluteString)"), "\(reason)")
                #expect(reason.contains("cannot download to \(destination.path)"), "\(reason)")
                #expect(reason.contains(refused.reason), "\(reason)")
            }
            #expect(try await server.hits(path) == 0, "\(form)")
            #expect(try Self.snapshot(parent) == before, "\(form): something under \(parent.path) changed")
        }
    }

    /// What a middleware plants at the destination as the request goes by: after the download has checked it.
    enum Planted: String, CaseIterable, Sendable {
        /// A directory with `keep.txt` in it.
        case directory
        /// A symbolic link to `victim.txt` beside the destination.
        case symbolicLink

        /// Everything the parent must hold afterwards, as ``DownloadDestinationTests/snapshot(_:)`` shows it.
        func expected(in parent: URL) -> [String: String] {
            switch self {
            case .directory: ["user.json": "directory", "user.json/keep.txt": "kept"]
            case .symbolicLink: ["user.json": "-> " + parent.appending(path: "victim.txt").path, "victim.txt": "kept"]
            }
        }
    }

    /// Plants `planted` at `path` as the request goes by.
    struct Plants: Middleware {
        let planted: Planted
        let path: URL

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            do {
                switch planted {
                case .directory:
                    try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
                    try Data("kept".utf8).write(to: path.appending(path: "keep.txt"))
                case .symbolicLink:
                    let victim = path.deletingLastPathComponent().appending(path: "victim.txt")
                    try Data("kept".utf8).write(to: victim)
                    try FileManager.default.createSymbolicLink(at: path, withDestinationURL: victim)
                }
            } catch {
                completion(.failure(error))
                return
            }
            next(request, completion: completion)
        }
    }

    @Test(arguments: SessionTransport.allCases, Planted.allCases)
    func aDirectoryOrALinkPlantedAtTheDestinationWhileTheBodyComesIsNeitherRemovedNorFollowed(
        _ transport: SessionTransport, _ planted: Planted
    ) async throws {
        for form in Form.allCases {
            let parent = temporary.url.appending(
                path: "late-\(transport.rawValue)-\(planted.rawValue)-\(form.rawValue)")
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            let destination = parent.appending(path: "user.json")
            let session = try transferPerformer(transport).with(Plants(planted: planted, path: destination))
            let request = TestRequest(server.url("/echo/\(UUID().uuidString)"))
            do {
                let transfer =
                    form == .plain
                    ? session.download(request, to: destination)
                    : session.download(request, to: destination, resumption: DownloadResumption())
                let response = try await transfer.value
                Issue.record("\(form): expected the download to fail, got \(response.status)")
            } catch let error as FetchError where error.code == .invalidRequest {
                guard case .invalidRequest(let reason) = error.kind else {
                    return
                }
                #expect(reason.contains("GET \(request.url.absoluteString)"), "\(reason)")
                #expect(reason.contains("cannot move the downloaded file to \(destination.path)"), "\(reason)")
            }
            #expect(try Self.snapshot(parent) == planted.expected(in: parent), "\(form)")
        }
    }

    @Test(arguments: SessionTransport.allCases, Form.allCases)
    func anExistingRegularFileIsReplacedWholeAndNothingElseStays(_ transport: SessionTransport, _ form: Form)
        async throws
    {
        let parent = temporary.url.appending(path: "replaced-\(transport.rawValue)-\(form.rawValue)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let destination = parent.appending(path: "user.json")
        try Data("the old file, longer than the new body will be".utf8).write(to: destination)
        let session = try transferPerformer(transport)
        let request = TestRequest(server.url("/users/1"))

        let response =
            try await form == .plain
            ? session.download(request, to: destination).value
            : session.download(request, to: destination, resumption: DownloadResumption()).value

        #expect(response.status == 200)
        let expected: Data = try await session.perform(request)
        #expect(try Data(contentsOf: destination) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["user.json"])
    }
}
