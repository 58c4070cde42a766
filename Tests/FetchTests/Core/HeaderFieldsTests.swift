import Fetch
import FetchTesting
import Foundation
import Testing

@Suite struct HeaderFieldsTests {
    static let cookies = [
        "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/", "b=2; Expires=Thu, 22 Oct 2037 07:28:00 GMT",
    ]

    let repeated = HeaderFields([
        ("Set-Cookie", cookies[0]), ("x-amz-date", "20370101T000000Z"), ("Link", "</one>; rel=next"),
        ("set-cookie", cookies[1]), ("LINK", "</two>; rel=last"),
    ])

    @Test func aNameIsLookedUpWhateverItsCase() {
        #expect(repeated["X-Amz-Date"] == "20370101T000000Z")
        #expect(repeated["x-amz-date"] == "20370101T000000Z")
        #expect(repeated["Content-Type"] == nil)
        #expect(repeated.values(for: "Content-Type").isEmpty)
    }

    @Test func repeatedFieldsAreCombinedExceptSetCookieWhichKeepsItsFirstValue() {
        #expect(repeated["link"] == "</one>; rel=next, </two>; rel=last")
        #expect(repeated["SET-COOKIE"] == Self.cookies[0])
    }

    @Test func eachFieldKeepsItsOwnValueAndNameInWireOrder() {
        #expect(repeated.values(for: "Set-Cookie") == Self.cookies)
        #expect(repeated.values(for: "link") == ["</one>; rel=next", "</two>; rel=last"])
        #expect(repeated.map(\.name) == ["Set-Cookie", "x-amz-date", "Link", "set-cookie", "LINK"])
    }

    @Test func aDictionaryLiteralKeepsItsOrder() {
        let headers: HeaderFields = ["Z-Last": "1", "A-First": "2", "M-Middle": "3"]
        #expect(headers.map(\.name) == ["Z-Last", "A-First", "M-Middle"])
        #expect(HeaderFields(["b": "2", "a": "1"]).map(\.name) == ["a", "b"], "a dictionary: sorted by name")
    }

    @Test func equalFieldsHaveTheSameValuesForEachNameInTheSameOrderNamesIgnoringCase() {
        let lower: HeaderFields = ["etag": "1", "vary": "accept"]
        #expect(lower == ["ETag": "1", "Vary": "accept"])
        #expect(lower == ["Vary": "accept", "ETag": "1"], "fields of different names: their order does not count")
        #expect(Set([lower, ["VARY": "accept", "ETAG": "1"]]).count == 1)
        #expect(lower != ["etag": "1", "vary": "Accept"])
        #expect(HeaderFields([("Link", "a"), ("Link", "b")]) != HeaderFields([("Link", "b"), ("Link", "a")]))
        #expect(HeaderFields([("Link", "a"), ("Link", "b")]) != ["Link": "a, b"])
    }

    @Test func aRequestHeaderSetInOneCaseIsReadInAnother() throws {
        let spy = SpyPerformer()
        spy.perform(TestRequest("https://s3.example.test/bucket", headers: ["X-Amz-Date": "20370101T000000Z"])) {
            (_: Result<Data, any Error>) in
        }
        let sent = try #require(spy.requests.first)
        #expect(sent.headers["x-amz-date"] == "20370101T000000Z")
        #expect(try sent.makeURLRequest().value(forHTTPHeaderField: "x-amz-date") == "20370101T000000Z")
    }

    @Test func aRequestSendsEveryFieldOfARepeatedName() throws {
        let request = TestRequest(
            "https://example.test/", headers: HeaderFields([("Accept", "text/html"), ("accept", "application/json")]))
        let sent = try #require(try request.makeURLRequest().value(forHTTPHeaderField: "Accept"))
        #expect(sent.contains("text/html") && sent.contains("application/json"), "\(sent)")
    }

    @Test func aMockAnswerKeepsRepeatedFieldsApart() throws {
        let result = Captured<Result<Response, any Error>>()
        MockPerformer { _ in MockResponse(headers: repeated) }.perform(
            TestRequest("https://example.test/"), completion: result.capture)
        let response = try #require(result.value).get()
        #expect(response.headers.values(for: "Set-Cookie") == Self.cookies)
        #expect(response.headers == repeated)
    }
}

/// Header fields as each transport delivers them from the loopback server's `/headers/repeated`.
/// The scan for line breaks that the libcurl transport runs on every field it sends.
@Suite struct HeaderLineBreakTests {
    /// It agrees with `Character.isNewline`, which it replaces for speed, on every scalar that could matter: the C0
    /// and C1 controls, the Unicode separators and their neighbours, and text around them.
    @Test func findsExactlyTheLineBreaksACharacterScanFinds() {
        var scalars = (0x00...0xA0).compactMap(Unicode.Scalar.init)
        scalars += (0x2020...0x2030).compactMap(Unicode.Scalar.init)
        for scalar in scalars {
            for text in [String(scalar), "a\(scalar)b", "\(scalar)\u{301}", "\r\(scalar)"] {
                #expect(
                    HeaderName.hasLineBreak(text) == text.contains(where: \.isNewline),
                    "U+\(String(scalar.value, radix: 16)) in \(text.debugDescription)")
            }
        }
        #expect(!HeaderName.hasLineBreak("application/json; charset=utf-8"))
        #expect(!HeaderName.hasLineBreak(""))
    }
}

@Suite struct HeaderFieldsWireTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    @Test(arguments: SessionTransport.allCases)
    func aLowercaseNameSentIsReadInAnyCase(on transport: SessionTransport) async throws {
        let response: Response = try await makeSession(transport).perform(TestRequest(server.url("/headers/repeated")))
        #expect(response.headers["X-Amz-Date"] == "20370101T000000Z")
    }

    #if os(Linux)
        @Test func libcurlKeepsTwoSetCookieFieldsApartWithNamesAsSentInWireOrder() async throws {
            let response: Response = try await makeSession(.curl).perform(TestRequest(server.url("/headers/repeated")))
            #expect(response.headers.values(for: "Set-Cookie") == HeaderFieldsTests.cookies)
            #expect(response.headers["Set-Cookie"] == HeaderFieldsTests.cookies[0])
            #expect(response.headers.values(for: "Link") == ["</one>; rel=next", "</two>; rel=last"])
            let names = response.headers.map(\.name).filter { !["Server", "Date"].contains($0) }
            #expect(
                names == ["Content-Type", "Content-Length", "Set-Cookie", "x-amz-date", "Link", "Set-Cookie", "Link"])
        }

        /// A stream's head (and so a download's, which is a stream written to a file) is read from libcurl's raw
        /// head too, not from an `HTTPURLResponse` that would join its repeated fields.
        @Test func libcurlKeepsRepeatedFieldsApartInAStreamsHeadAndADownloads() async throws {
            let session = try makeSession(.curl)
            let stream = try await session.stream(TestRequest(server.url("/headers/repeated")))
            #expect(stream.response.headers.values(for: "Set-Cookie") == HeaderFieldsTests.cookies)
            #expect(stream.response.headers.values(for: "Link") == ["</one>; rel=next", "</two>; rel=last"])
            #expect(stream.response.headers.contains { $0.name == "x-amz-date" })

            let directory = try TemporaryDirectory("repeated-download")
            let download = session.download(
                TestRequest(server.url("/headers/repeated")), to: directory.url.appending(path: "body"))
            let response = try await download.value
            #expect(response.headers.values(for: "Set-Cookie") == HeaderFieldsTests.cookies)
        }
    #endif

    /// As `PlatformDifferences.md` says: Foundation hands over a dictionary, whose repeated fields are one field,
    /// joined with ", "; Fetch splits `Set-Cookie` apart again, the commas of `Expires` dates staying in their cookie.
    /// Every face but `.shared`, whose cookie storage is the process's (on disk on Linux): its two cookies for `/`
    /// would go out with the requests of the suites running beside this one. `.shared` reads its head through the
    /// same `HTTPURLResponse` path as `.callersURLSession`.
    @Test(arguments: SessionFace.allCases.filter { $0 != .shared })
    func everyFaceDeliversEachSetCookieApartAndOtherRepeatedFieldsAsSent(on face: SessionFace) async throws {
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let response: Response = try await session.perform(TestRequest(server.url("/headers/repeated")))
        // The lookup first: before the fields are converted, it reads Foundation's own value.
        #expect(response.headers["Set-Cookie"] == HeaderFieldsTests.cookies[0])
        #expect(response.headers.values(for: "Set-Cookie") == HeaderFieldsTests.cookies)
        if face.isURLSession {
            #expect(response.headers["Link"] == "</one>; rel=next, </two>; rel=last")
        }
    }
}

@Suite struct SetCookieLinesTests {
    @Test func splitsJoinedCookiesOnlyWhereANameFollowsTheComma() {
        let joined = HeaderFieldsTests.cookies.joined(separator: ", ")
        #expect(SetCookieLines.split(joined) == HeaderFieldsTests.cookies)
        #expect(SetCookieLines.split("a=1") == ["a=1"])
        let one = "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT"
        #expect(SetCookieLines.split(one) == [one])
        #expect(SetCookieLines.split("a=1, b=2,c=3") == ["a=1", "b=2", "c=3"])
        #expect(SetCookieLines.split("") == [""])
    }
}
