import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MultipartBodyTests {
    let base = URL(string: "https://api.example.com/upload") ?? URL(fileURLWithPath: "/")

    /// A body whose boundaries are `boundaries` in turn, for exact expectations.
    func body(boundaries: [String], maximumInMemorySize: Int = MultipartBody.defaultMemoryLimit) -> MultipartBody {
        let next = Locked(boundaries[...])
        var body = MultipartBody(maximumInMemorySize: maximumInMemorySize)
        body.makeBoundary = { next.withLock { $0.popFirst() ?? "exhausted" } }
        return body
    }

    func text(_ encoded: (contentType: String, body: EncodedBody)) throws -> String {
        guard case .data(let data) = encoded.body else {
            throw TestServerError("expected an in-memory body")
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func encodesFieldsAndFilesWithCRLFsAndTheClosingDelimiter() throws {
        let encoded = try body(boundaries: ["XyZ"])
            .field("title", "Hello\r\nworld")
            .file("doc", data: Data("%PDF".utf8), filename: "a.pdf", contentType: "application/pdf")
            .encoded()
        #expect(encoded.contentType == "multipart/form-data; boundary=XyZ")
        #expect(
            try text(encoded) == "--XyZ\r\n"
                + "Content-Disposition: form-data; name=\"title\"\r\n\r\n"
                + "Hello\r\nworld\r\n"
                + "--XyZ\r\n"
                + "Content-Disposition: form-data; name=\"doc\"; filename=\"a.pdf\"\r\n"
                + "Content-Type: application/pdf\r\n\r\n"
                + "%PDF\r\n"
                + "--XyZ--\r\n"
        )
    }

    @Test func anEmptyBodyIsTheClosingDelimiterAlone() throws {
        #expect(try text(body(boundaries: ["B"]).encoded()) == "--B--\r\n")
    }

    @Test func escapesQuotesAndLineBreaksInNamesAsBrowsersDo() throws {
        let encoded = try body(boundaries: ["B"])
            .file(
                "a\"b\r\nc", data: Data(), filename: "evil\"; name=\"x\r\nContent-Type: text/html", contentType: "t/x"
            )
            .encoded()
        let expected =
            "Content-Disposition: form-data; name=\"a%22b%0D%0Ac\";"
            + " filename=\"evil%22; name=%22x%0D%0AContent-Type: text/html\"\r\nContent-Type: t/x\r\n\r\n"
        #expect(try text(encoded).contains(expected))
    }

    @Test func aBoundaryThatOccursInTheContentIsReplaced() throws {
        let encoded = try body(boundaries: ["in-the-data", "fresh"]).field("f", "x in-the-data y").encoded()
        #expect(encoded.contentType == "multipart/form-data; boundary=fresh")
        #expect(try text(encoded).hasPrefix("--fresh\r\n"))
    }

    @Test func aBoundaryThatOccursInAPartsHeadersIsReplaced() throws {
        // A parser that looks for the boundary alone would split the part at its file name.
        let encoded = try body(boundaries: ["evil", "fresh"])
            .file("f", data: Data("x".utf8), filename: "evil.txt", contentType: "text/plain")
            .encoded()
        #expect(encoded.contentType == "multipart/form-data; boundary=fresh")
    }

    @Test func aBoundaryInAStreamedFileIsFoundAcrossChunks() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "straddle.bin")
        // The boundary straddles the first chunk's end.
        var content = Data(repeating: 0x61, count: MultipartBody.chunkSize - 3)
        content.append(Data("BOUNDARY".utf8))
        try content.write(to: file)
        let encoded = try body(boundaries: ["BOUNDARY", "other"], maximumInMemorySize: 0)
            .file("f", contentsOf: file)
            .encoded()
        #expect(encoded.contentType == "multipart/form-data; boundary=other")
    }

    @Test func whenEveryBoundaryOccursInTheContentTheRequestIsInvalid() throws {
        let multipart = body(boundaries: ["a", "b", "c"]).field("f", "abc")
        let error = try #require(throws: FetchError.self) { try multipart.encoded() }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("a, b, c"))
    }

    @Test func randomBoundariesDiffer() throws {
        let first = try MultipartBody().field("a", "1").encoded().contentType
        let second = try MultipartBody().field("a", "1").encoded().contentType
        #expect(first != second)
        #expect(first.hasPrefix("multipart/form-data; boundary=Fetch-Boundary-"))
    }

    @Test func aContentTypeWithALineBreakIsRejected() throws {
        let multipart = MultipartBody().file("f", data: Data(), filename: "a", contentType: "text/plain\r\nX-Evil: 1")
        let error = try #require(throws: FetchError.self) { try multipart.encoded() }
        #expect(error.description.contains("line break"))
    }

    @Test func aMissingFileIsAnEncodingErrorNamingIt() throws {
        let request = APIRequest(base).multipartBody(
            MultipartBody().file("f", contentsOf: URL(fileURLWithPath: "/nonexistent/photo.jpg"))
        )
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        guard case .encoding = error.fetchKind else {
            Issue.record("expected encoding, got \(error)")
            return
        }
        #expect(error.description.contains("/nonexistent/photo.jpg"))
        #expect(error.description.contains("\"f\""))
    }

    @Test(arguments: ["directory", "directory/sub/..", "link"])
    func aFilePartThatIsADirectoryALinkOrADotDotPathIsAnEncodingErrorAndNothingIsRead(_ source: String) throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            at: directory.url.appending(path: "directory/sub"), withIntermediateDirectories: true)
        let secret = directory.url.appending(path: "secret.txt")
        try Data("not for upload".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(
            at: directory.url.appending(path: "link"), withDestinationURL: secret)
        let file = directory.url.appending(path: source)
        let request = APIRequest(base).method(.post).multipartBody(MultipartBody().file("f", contentsOf: file))

        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }

        guard case .encoding = error.fetchKind else {
            Issue.record("expected encoding, got \(error)")
            return
        }
        #expect(error.description.contains("cannot read \(file.path)"), "\(error)")
        let why = ["it is a directory", "has a \"..\" component", "it is a symbolic link"]
        #expect(why.contains { error.description.contains($0) }, "\(error)")
    }

    @Test func aSmallBodyIsSentFromMemoryWithItsContentType() throws {
        let request = APIRequest(base).method(.post).multipartBody(body(boundaries: ["B"]).field("a", "1"))
        let urlRequest = try request.makeURLRequest()
        #expect(
            urlRequest.httpBody.map { String(decoding: $0, as: UTF8.self) }
                == "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\n")
        #expect(urlRequest.httpBodyStream == nil)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=B")
    }

    @Test func aLargeBodyIsStreamedFromATemporaryFileThatIsDeletedWithTheRequest() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "photo.jpg")
        try Data(repeating: 7, count: 100).write(to: file)
        let parts = { (limit: Int) in
            body(boundaries: ["B"], maximumInMemorySize: limit).field("a", "1").file("p", contentsOf: file)
        }
        let inMemory = try #require(APIRequest(base).multipartBody(parts(1_000)).makeURLRequest().httpBody)

        // The request owns the temporary file: it must outlive the reading of the stream, as in a Session call.
        let request = APIRequest(base).multipartBody(parts(99))
        let urlRequest = try request.makeURLRequest()
        #expect(urlRequest.httpBody == nil)
        #expect(request.body == nil)
        let stream = try #require(urlRequest.httpBodyStream)
        #expect(try withExtendedLifetime(request) { try Self.readAll(stream) } == inMemory)

        var encoded = try parts(99).encoded()
        let fileURL = try Self.temporaryFile(of: encoded.body, length: inMemory.count)
        #expect(FileManager.default.fileExists(atPath: fileURL.path))
        encoded.body = .data(Data())
        #expect(!FileManager.default.fileExists(atPath: fileURL.path))
    }

    static func temporaryFile(of body: EncodedBody, length expected: Int) throws -> URL {
        guard case .file(let file, let length) = body else {
            throw TestServerError("expected a body streamed from a file, got \(body)")
        }
        #expect(length == expected)
        return file.url
    }

    static func readAll(_ stream: InputStream) throws -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else {
                if count < 0 {
                    throw TestServerError("reading the body stream failed: \(String(describing: stream.streamError))")
                }
                return data
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}
