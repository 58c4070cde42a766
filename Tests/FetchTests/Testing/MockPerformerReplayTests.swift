import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MockPerformer(replaying:)`: which recorded answer a request gets, and the errors for a miss and a bad file.
@Suite struct MockPerformerReplayTests {
    struct Item: Decodable, Parsable, Equatable {
        let id: Int
    }

    private let temporary: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory("ReplayTests")
    }

    /// A recorded exchange: `request` answered with `{"id": id}`.
    static func recorded(_ request: any Request, id: Int, status: Int = 200) throws -> HAR.Entry {
        let response = Response(
            status: status, headers: ["Content-Type": "application/json"], data: Data(#"{"id":\#(id)}"#.utf8),
            originalRequest: request)
        return try HAR.Entry(
            request: request, response: response, startedDateTime: Date(), timings: .total(0.01))
    }

    /// A HAR file of the entries.
    func file(_ entries: [HAR.Entry], name: String = "fixture.har") throws -> URL {
        let file = directory.appendingPathComponent(name)
        var archive = HAR()
        archive.log.entries = entries
        try archive.encoded().write(to: file)
        return file
    }

    /// The result of `request` on `mock`, which must have completed before `perform` returned.
    func answer(_ mock: MockPerformer, _ request: any Request) throws -> Result<Item, any Error> {
        let result = Captured<Result<Item, any Error>>()
        mock.perform(request, completion: result.capture)
        return try #require(result.value, "MockPerformer(replaying:) did not complete synchronously")
    }

    func url(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    @Test func repeatedResponseFieldsStayApartFromRecordingToReplay() throws {
        let request = TestRequest(try url("https://api.example.test/links"))
        let headers = HeaderFields([
            ("Content-Type", "application/json"), ("Link", "</one>; rel=next"), ("Link", "</two>; rel=last"),
            ("Set-Cookie", "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT"), ("Set-Cookie", "b=2"),
        ])
        let response = Response(status: 200, headers: headers, data: Data(#"{"id":1}"#.utf8), originalRequest: request)
        let entry = try HAR.Entry(request: request, response: response, startedDateTime: Date(), timings: .total(0.01))
        #expect(entry.response.headers.map(\.name) == ["Content-Type", "Link", "Link", "Set-Cookie", "Set-Cookie"])
        #expect(entry.response.headers.filter { $0.name == "Link" }.map(\.value) == headers.values(for: "Link"))

        let result = Captured<Result<Response, any Error>>()
        try MockPerformer(replaying: file([entry])).perform(request, completion: result.capture)
        let replayed = try #require(result.value).get()
        #expect(replayed.headers.values(for: "Link") == ["</one>; rel=next", "</two>; rel=last"])
        #expect(replayed.headers.values(for: "Set-Cookie").count == 2, "each cookie redacted on its own")
    }

    @Test func repeatedRequestFieldsMatchTheirRecordingFieldByField() throws {
        let request = TestRequest(
            try url("https://api.example.test/tags"), headers: HeaderFields([("X-Tag", "a"), ("X-Tag", "b")]))
        let response = Response(status: 200, data: Data(#"{"id":3}"#.utf8), originalRequest: request)
        let entry = try HAR.Entry(request: request, response: response, startedDateTime: Date(), timings: .total(0.01))
        #expect(entry.request.headers.map(\.value) == ["a", "b"])
        let mock = try MockPerformer(replaying: file([entry]), matching: HARMatcher(includingHeaders: true))
        #expect(try answer(mock, request).get() == Item(id: 3))
        let other = TestRequest(
            try url("https://api.example.test/tags"), headers: HeaderFields([("X-Tag", "a"), ("X-Tag", "c")]))
        #expect(throws: (any Error).self) { try answer(mock, other).get() }
    }

    @Test func answersSynchronouslyMatchingTheQueryInAnyOrder() throws {
        let recordedRequest = APIRequest(try url("http://api.test/search")).query("q", "fetch").query("page", "2")
        let mock = try MockPerformer(replaying: file([Self.recorded(recordedRequest, id: 7)]))
        let asked = APIRequest(try url("http://api.test/search")).query("page", "2").query("q", "fetch")
        #expect(try answer(mock, asked).get() == Item(id: 7))
    }

    @Test func matchesJSONBodiesAsJSONAndTellsDifferentOnesApart() throws {
        let first = APIRequest(try url("http://api.test/items"), method: .post).body(
            Data(#"{"name":"a","size":1}"#.utf8), contentType: "application/json")
        let second = APIRequest(try url("http://api.test/items"), method: .post).body(
            Data(#"{"name":"b","size":1}"#.utf8), contentType: "application/json")
        let mock = try MockPerformer(replaying: file([Self.recorded(first, id: 1), Self.recorded(second, id: 2)]))
        let reordered = APIRequest(try url("http://api.test/items"), method: .post).body(
            Data(#"{ "size": 1, "name": "b" }"#.utf8), contentType: "application/json")
        #expect(try answer(mock, reordered).get() == Item(id: 2))
        #expect(try answer(mock, first).get() == Item(id: 1))
    }

    @Test func ignoresTheBodyFieldsAndQueryItemsTheMatcherNames() throws {
        let recordedRequest = APIRequest(try url("http://api.test/events"), method: .post)
            .query("nonce", "111")
            .body(Data(#"{"kind":"open","meta":{"timestamp":1000}}"#.utf8), contentType: "application/json")
        let archive = try file([Self.recorded(recordedRequest, id: 3)])
        let later = APIRequest(try url("http://api.test/events"), method: .post)
            .query("nonce", "222")
            .body(Data(#"{"kind":"open","meta":{"timestamp":2000}}"#.utf8), contentType: "application/json")
        let strict = try MockPerformer(replaying: archive)
        #expect(throws: NoRecordedAnswer.self) { try answer(strict, later).get() }
        let lenient = try MockPerformer(
            replaying: archive, matching: HARMatcher(ignoringQueryItems: ["nonce"], ignoringBodyFields: ["timestamp"]))
        #expect(try answer(lenient, later).get() == Item(id: 3))
    }

    @Test func comparesHeadersOnlyWhenTheMatcherIncludesThem() throws {
        let recordedRequest = APIRequest(try url("http://api.test/me"))
            .header("Accept-Language", "en")
            .header("Authorization", "Bearer recorded-secret-token")
            .header("X-Request-ID", "1")
        let archive = try file([Self.recorded(recordedRequest, id: 4)])
        let french = APIRequest(try url("http://api.test/me"))
            .header("Accept-Language", "fr")
            .header("Authorization", "Bearer another-token-today")
            .header("X-Request-ID", "2")
        #expect(try answer(MockPerformer(replaying: archive), french).get() == Item(id: 4))
        let withHeaders = HARMatcher(includingHeaders: true, ignoringHeaders: ["X-Request-ID"])
        let error = try #require(throws: NoRecordedAnswer.self) {
            try answer(MockPerformer(replaying: archive, matching: withHeaders), french).get()
        }
        #expect(error.differingParts == [.headers])
        #expect(error.description.contains(#"the headers: Accept-Language is "en" recorded, "fr" here"#))
        // The recorded Authorization is REDACTED, which matches any value.
        let english = french.header("Accept-Language", "en")
        #expect(try answer(MockPerformer(replaying: archive, matching: withHeaders), english).get() == Item(id: 4))
    }

    @Test func aRedactedQueryValueMatchesAnyValue() throws {
        let recordedRequest = APIRequest(try url("http://api.test/feed")).query("api_key", "secret-one-1234")
        let entry = try HAR.Entry(
            request: recordedRequest,
            response: Response(status: 200, data: Data(#"{"id":5}"#.utf8), originalRequest: recordedRequest),
            startedDateTime: Date(), timings: .total(0), redaction: Redaction(queryItems: ["api_key"]))
        #expect(entry.request.url == "http://api.test/feed?api_key=REDACTED")
        let mock = try MockPerformer(replaying: file([entry]))
        let asked = APIRequest(try url("http://api.test/feed")).query("api_key", "secret-two-5678")
        #expect(try answer(mock, asked).get() == Item(id: 5))
    }

    @Test func matchesAMultipartBodyWhateverItsBoundary() throws {
        func upload() throws -> APIRequest {
            APIRequest(try url("http://api.test/upload"), method: .post).multipartBody(
                MultipartBody().field("title", "cat").file("photo", data: Data([1, 2, 3]), filename: "cat.png"))
        }
        let mock = try MockPerformer(replaying: file([Self.recorded(try upload(), id: 6)]))
        #expect(try answer(mock, try upload()).get() == Item(id: 6))
        let other = APIRequest(try url("http://api.test/upload"), method: .post).multipartBody(
            MultipartBody().field("title", "dog").file("photo", data: Data([1, 2, 3]), filename: "cat.png"))
        #expect(throws: NoRecordedAnswer.self) { try answer(mock, other).get() }
    }

    @Test func theSameRequestRecordedTwiceAnswersInRecordedOrderThenRepeatsTheLast() throws {
        let poll = APIRequest(try url("http://api.test/jobs/1"))
        let mock = try MockPerformer(
            replaying: file([
                Self.recorded(poll, id: 1), Self.recorded(APIRequest(try url("http://api.test/other")), id: 0),
                Self.recorded(poll, id: 2), Self.recorded(poll, id: 3),
            ]))
        let answers = try (0..<5).map { _ in try answer(mock, poll).get().id }
        #expect(answers == [1, 2, 3, 3, 3])
    }

    @Test func aRequestWithNoMatchNamesItTheClosestRecordedRequestAndWhatDiffers() throws {
        let archive = try file([
            Self.recorded(APIRequest(try url("http://api.test/users")), id: 1),
            Self.recorded(APIRequest(try url("http://api.test/search")).query("q", "fetch").query("page", "2"), id: 2),
            Self.recorded(APIRequest(try url("http://api.test/search"), method: .post), id: 3),
        ])
        let asked = APIRequest(try url("http://api.test/search")).query("q", "fetch").query("page", "3")
        let error = try #require(throws: NoRecordedAnswer.self) {
            try answer(MockPerformer(replaying: archive), asked).get()
        }
        #expect(error.closestEntry == 1)
        #expect(error.differingParts == [.query])
        #expect(
            error.description
                == "No recorded answer in \(archive.path) for GET http://api.test/search?q=fetch&page=3; the closest"
                + " recorded request is log.entries[1], GET http://api.test/search?q=fetch&page=2, which differs in"
                + #" the query: page is "2" recorded, "3" here"#)
        let posted = APIRequest(try url("http://api.test/users"), method: .post).body(
            Data(#"{"name":"Ada"}"#.utf8), contentType: "application/json")
        let twoParts = try #require(throws: NoRecordedAnswer.self) {
            try answer(MockPerformer(replaying: archive), posted).get()
        }
        #expect(twoParts.closestEntry == 0)
        #expect(twoParts.differingParts == [.method, .body])
        #expect(twoParts.description.contains("which differs in the method: GET recorded, POST here; and in the body:"))
    }

    @Test func aTruncatedFileFailsWithAClearErrorAndNoPerformer() throws {
        let whole = try file([Self.recorded(APIRequest(try url("http://api.test/a")), id: 1)], name: "whole.har")
        let data = try Data(contentsOf: whole)
        let truncated = directory.appendingPathComponent("truncated.har")
        try data.prefix(data.count - 40).write(to: truncated)
        let error = try #require(throws: HARError.self) { try MockPerformer(replaying: truncated) }
        #expect(error.file == truncated)
        #expect(error.description.hasPrefix("\(truncated.path): is not valid JSON; it looks truncated"))
    }

    @Test func aJSONArrayFailsWithAClearError() throws {
        let array = directory.appendingPathComponent("array.har")
        try Data(#"[{"log": {}}]"#.utf8).write(to: array)
        let error = try #require(throws: HARError.self) { try MockPerformer(replaying: array) }
        #expect(
            error.description.hasPrefix(
                "\(array.path): is not a HAR archive: its top level must be an object with a \"log\""))
    }

    @Test func aMissingFieldFailsNamingItsJSONPath() throws {
        let entries = try (0..<4).map { try Self.recorded(APIRequest(try url("http://api.test/\($0)")), id: $0) }
        let whole = try file(entries, name: "four.har")
        var json = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: whole)) as? [String: Any])
        json = HARTests.setting(json, ["log", "entries", 3, "response", "status"], to: nil)
        let broken = directory.appendingPathComponent("broken.har")
        try JSONSerialization.data(withJSONObject: json).write(to: broken)
        let error = try #require(throws: HARError.self) { try MockPerformer(replaying: broken) }
        #expect(error.path == "log.entries[3].response.status")
        #expect(error.description == "\(broken.path): log.entries[3].response.status: missing (HAR 1.2 requires it)")
    }

    @Test func replaysAFileExportedByABrowserWithItsOwnExtraFields() throws {
        // As Chrome and Firefox write them: pages, custom `_` fields, null cookie expiry, a time zone offset,
        // HTTP/2, unknown sizes, a base64 body.
        let exported = #"""
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
              "pages": [{"startedDateTime": "2026-11-30T09:42:12.000+01:00", "id": "page_1", "title": "App",
                         "pageTimings": {"onContentLoad": 120.5, "onLoad": -1}}],
              "entries": [{
                "pageref": "page_1", "_initiator": {"type": "script"}, "_priority": "High",
                "startedDateTime": "2026-11-30T09:42:12.345+01:00", "time": 31.2,
                "request": {"method": "GET", "url": "https://api.example.com/items/8?lang=en", "httpVersion": "h2",
                  "headers": [{"name": ":authority", "value": "api.example.com"}],
                  "queryString": [{"name": "lang", "value": "en"}],
                  "cookies": [{"name": "sid", "value": "x", "expires": null, "httpOnly": false, "secure": true}],
                  "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "", "httpVersion": "h2",
                  "headers": [{"name": "content-type", "value": "application/json"}], "cookies": [],
                  "content": {"size": 8, "mimeType": "application/json", "text": "eyJpZCI6OH0=",
                              "encoding": "base64"},
                  "redirectURL": "", "headersSize": -1, "bodySize": -1, "_transferSize": 120, "_error": null},
                "cache": {}, "serverIPAddress": "93.184.216.34", "connection": "443",
                "timings": {"blocked": 1.1, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 29.8,
                            "receive": 0.2, "_blocked_queueing": 0.8}}]}}
            """#
        let fixture = directory.appendingPathComponent("chrome.har")
        try Data(exported.utf8).write(to: fixture)
        let mock = try MockPerformer(replaying: fixture)
        #expect(
            try answer(mock, APIRequest(try url("https://api.example.com/items/8")).query("lang", "en")).get()
                == Item(id: 8))
    }

    @Test func errorBodiesGoThroughTheErrorParserAsWithEveryDouble() throws {
        let request = APIRequest(try url("http://api.test/users/9"))
        let response = Response(
            status: 404, headers: ["Content-Type": "application/json"],
            data: Data(#"{"error":true,"reason":"no user with id 9"}"#.utf8), originalRequest: request)
        let entry = try HAR.Entry(request: request, response: response, startedDateTime: Date(), timings: .total(0))
        let mock = try MockPerformer(replaying: file([entry]))
        let result = Captured<Result<Item, any Error>>()
        mock.perform(request, errorParser: DecodableErrorParser<APIError>(), completion: result.capture)
        #expect(throws: APIError(error: true, reason: "no user with id 9")) { try result.value?.get() }
    }
}
