import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `APIRequest`s sent by a `Session` to the loopback test server, which decodes them with Python's own parsers
/// (`urllib.parse`, `email.parser`) and echoes what it saw, compared here field by field.
@Suite struct APIRequestRoundTripTests {
    let server: TestServer
    let session: Session

    init() throws {
        server = try TestServer.running()
        session = makeSession()
    }

    struct Order: Codable, Equatable {
        let id: Int
        let note: String
        let tags: [String]
        let placedAt: Date
    }

    static let awkward = ["a b", "a+b", "a&b=c", "#frag", "x/y", "100%", "Zoë ☕︎ 日本", "?q", ";,'()*!$@:", ""]

    @Test func pathSegmentsArriveEachAsItself() async throws {
        let segments = ["files"] + Self.awkward.dropLast() + ["end"]
        let echo: RequestEcho = try await session.perform(APIRequest(server.url("/requests/echo")).path(segments))
        try #require(echo.segments.count == 2 + segments.count)
        #expect(Array(echo.segments.dropFirst(2)) == segments)
    }

    @Test func queryItemsArriveInOrderEachAsItselfAfterTheBasesOwn() async throws {
        var request = APIRequest(server.url("/requests/echo?api_key=k%2B1&lang=en"))
        for (index, value) in Self.awkward.enumerated() {
            request = request.query("key \(index) ?&=+", value)
        }
        let echo: RequestEcho = try await session.perform(request.query("flag", nil))
        let expected =
            [["api_key", "k+1"], ["lang", "en"]]
            + Self.awkward.enumerated().map { ["key \($0.offset) ?&=+", $0.element] }
            + [["flag", ""]]
        #expect(echo.query == expected)
        #expect(echo.rawQuery.hasSuffix("&flag"))
    }

    @Test func anEndpointsURLArrivesDecodedAsBuilt() async throws {
        struct Echoing: Endpoint {
            let baseURL: URL
            var pathSegments: [String] { ["requests", "echo", "users", "ada lovelace/1"] }
            var queryItems: [URLQueryItem] { [URLQueryItem(name: "q", value: "a+b c")] }
            var method: HTTPMethod { .delete }
        }
        let endpoint = Echoing(baseURL: server.url("/"))
        let echo: RequestEcho = try await session.perform(APIRequest(endpoint))
        #expect(echo.method == "DELETE")
        #expect(echo.segments == ["requests", "echo", "users", "ada lovelace/1"])
        #expect(echo.query == [["q", "a+b c"]])
    }

    @Test func aJSONBodyArrivesAsTheSameValue() async throws {
        let order = Order(
            id: 7, note: "Zoë's \"order\"\n☕︎", tags: ["a+b", "c&d"],
            placedAt: Date(timeIntervalSince1970: 1_796_028_132))
        let request = APIRequest(server.url("/requests/echo")).method(.post).jsonBody(order)
        let echo: JSONEcho<Order> = try await session.perform(request)
        #expect(echo.json == order)
        #expect(echo.headers["content-type"] == "application/json")
    }

    @Test func aFormBodyArrivesAsTheSameFieldsInOrder() async throws {
        let fields =
            Self.awkward.enumerated().map { (name: "f \($0.offset)&=+", value: $0.element) }
            + [(name: "f 0&=+", value: "repeated"), (name: "multi", value: "line 1\r\nline 2")]
        let request = APIRequest(server.url("/requests/echo")).method(.post).formBody(fields)
        let echo: RequestEcho = try await session.perform(request)
        #expect(echo.form == fields.map { [$0.name, $0.value] })
        #expect(echo.headers["content-type"] == "application/x-www-form-urlencoded")
    }

    @Test func bodiesArriveWholeOnAReusedConnection() async throws {
        for value in ["first", "second", "third"] {
            let request = APIRequest(server.url("/requests/echo")).method(.post).formBody(["value": value])
            let echo: RequestEcho = try await session.perform(request)
            #expect(echo.form == [["value", value]])
        }
    }

    @Test func typedHeadersArrive() async throws {
        let request = APIRequest(server.url("/requests/echo"))
            .header(.accept("application/json"))
            .header(.userAgent("FetchTests/1.0"))
            .header(.authorization(username: "zoë", password: "p:ss word"))
            .defaultHeaders(["accept": "text/html", "X-Default": "d"])
        let echo: RequestEcho = try await session.perform(request)
        #expect(echo.headers["accept"] == "application/json")
        #expect(echo.headers["user-agent"] == "FetchTests/1.0")
        #expect(echo.headers["x-default"] == "d")
        let credentials = try #require(echo.headers["authorization"]?.split(separator: " ").last)
        let decoded = try #require(Data(base64Encoded: String(credentials)))
        #expect(String(decoding: decoded, as: UTF8.self) == "zoë:p:ss word")
    }

    @Test func aHeaderInjectionIsNeverSent() async throws {
        let path = "/requests/echo/injection-\(UUID().uuidString)"
        let request = APIRequest(server.url(path)).header("X-Note", "1\r\nX-Admin: true")
        let results = Captured<Result<RequestEcho, any Error>>()
        session.perform(request, completion: results.capture)
        guard case .invalidRequest = try fetchError(try await results.first()).fetchKind else {
            Issue.record("expected invalidRequest")
            return
        }
        #expect(try await server.hits(path) == 0)
    }

    @Test func aStreamedBodyOutlivesTheCallersReferenceToTheRequest() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "notes.txt")
        try Data("streamed".utf8).write(to: file)
        let results = Captured<Result<RequestEcho, any Error>>()
        // The caller keeps no reference: the session must keep the request, and so its temporary file.
        session.perform(
            APIRequest(server.url("/requests/echo"))
                .method(.post)
                .multipartBody(MultipartBody(maximumInMemorySize: 0).file("notes", contentsOf: file)),
            completion: results.capture
        )
        let echo = try await results.first().get()
        let parts = try #require(echo.multipart?.parts)
        #expect(parts.map(\.data) == [Data("streamed".utf8)])
    }

    #if canImport(FoundationNetworking)
        @Test func aStreamedURLRequestIsSentWholeAfterItsRequestIsReleased() async throws {
            let directory = try TemporaryDirectory()
            let file = directory.url.appending(path: "notes.txt")
            try Data("streamed".utf8).write(to: file)
            // The APIRequest, owner of the temporary file, is gone before URLSession reads the stream.
            let urlRequest = try APIRequest(server.url("/requests/echo"))
                .method(.post)
                .multipartBody(MultipartBody(maximumInMemorySize: 0).file("notes", contentsOf: file))
                .makeURLRequest()
            let (data, _) = try await URLSession.shared.data(for: urlRequest)
            let echo = try JSONDecoder().decode(RequestEcho.self, from: data)
            let multipart = try #require(echo.multipart)
            #expect(multipart.defects.isEmpty)
            #expect(multipart.parts.map(\.data) == [Data("streamed".utf8)])
        }
    #endif

    /// Fields and files with awkward names, sent in memory and streamed from a temporary file.
    @Test(arguments: [MultipartBody.defaultMemoryLimit, 0])
    func aMultipartBodyArrivesAsTheSameFieldsAndFiles(maximumInMemorySize: Int) async throws {
        let directory = try TemporaryDirectory()
        let photo = directory.url.appending(path: "photo.jpg")
        let photoData = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try photoData.write(to: photo)
        let binary = Data([0x00, 0x0D, 0x0A, 0x2D, 0x2D, 0xFF, 0x0D, 0x0A])
        let multipart = MultipartBody(maximumInMemorySize: maximumInMemorySize)
            .field("title", "Zoë's holiday\r\n2026")
            .field("naïve name", "")
            .file("photo", contentsOf: photo, contentType: "image/jpeg")
            .file("raw", data: binary, filename: "résumé 1.bin")
            .file("quote\"d", data: Data("x".utf8), filename: "a\"b\nc.txt", contentType: "text/plain")
        let request = APIRequest(server.url("/requests/echo")).method(.post).multipartBody(multipart)
        let echo: RequestEcho = try await session.perform(request)

        let seen = try #require(echo.multipart)
        #expect(seen.defects.isEmpty)
        #expect(seen.startsWithDelimiter)
        #expect(seen.endsWithCloseDelimiter)
        try #require(seen.parts.count == 5)
        let parts = seen.parts
        #expect(parts.map(\.name) == ["title", "naïve name", "photo", "raw", "quote%22d"])
        #expect(parts.map(\.filename) == [nil, nil, "photo.jpg", "résumé 1.bin", "a%22b%0Ac.txt"])
        #expect(parts.map(\.contentType) == [nil, nil, "image/jpeg", "application/octet-stream", "text/plain"])
        #expect(parts[0].data == Data("Zoë's holiday\r\n2026".utf8))
        #expect(parts[1].data == Data())
        #expect(parts[2].data == photoData)
        #expect(parts[3].data == binary)
        #expect(parts[4].data == Data("x".utf8))
        #expect(parts.allSatisfy { $0.defects == [] })
        if maximumInMemorySize > 0 {
            #expect(echo.headers["content-length"] == String(echo.bodySize))
        } else {
            #if canImport(FoundationNetworking)
                // swift-corelibs-foundation sends a body stream chunked, without a Content-Length.
                #expect(echo.headers["transfer-encoding"] == "chunked")
                #expect(echo.headers["content-length"] == nil)
            #endif
        }
    }
}
