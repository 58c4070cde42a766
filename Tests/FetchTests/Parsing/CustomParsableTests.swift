import Fetch
import FetchTesting
import Foundation
import Testing

/// A format of Fetch's users' own (a tiny XML feed), parsed the way ``Parsable`` documents: through
/// `Response.requireSuccess(errorParser:)` first.
private struct Feed: Parsable, Equatable {
    let title: String

    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Feed, any Error> {
        response.requireSuccess(errorParser: errorParser).flatMap { response in
            let text = String(decoding: response.data ?? Data(), as: UTF8.self)
            guard let start = text.range(of: "<title>"), let end = text.range(of: "</title>") else {
                return .failure(FeedError.notAFeed(text))
            }
            return .success(Feed(title: String(text[start.upperBound..<end.lowerBound])))
        }
    }
}

private enum FeedError: Error, Equatable {
    case notAFeed(String)
}

/// The error of the XML API, with what only the headers say.
private struct XMLAPIError: Error, Equatable {
    let status: Int
    let requestID: String?
    let retryAfter: String?
}

/// Reads the headers of the whole response.
private struct XMLErrorParser: ErrorParsing {
    func parseError(from response: Response) -> (any Error)? {
        guard response.headers["Content-Type"]?.hasPrefix("application/xml") == true else {
            return nil
        }
        return XMLAPIError(
            status: response.status, requestID: response.headers["x-request-id"],
            retryAfter: response.headers["Retry-After"])
    }
}

/// Reads only the status and the body.
private struct StatusOnlyParser: ErrorParsing {
    func parseError(from response: Response) -> (any Error)? {
        guard response.status == 404 else { return nil }
        return XMLAPIError(status: response.status, requestID: nil, retryAfter: response.data.map { "\($0.count)" })
    }
}

@Suite struct CustomParsableTests {
    private let request = TestRequest(URL(string: "http://api.test/feeds/7")!)

    private func response(_ status: Int, _ body: String, headers: HeaderFields = [:]) -> Response {
        Response(status: status, headers: headers, data: Data(body.utf8), originalRequest: request)
    }

    @Test func aCustomParsableGetsTheErrorParsersErrorForA404() throws {
        let notFound = response(
            404, "<error>no such feed</error>",
            headers: ["Content-Type": "application/xml", "X-Request-Id": "req-1", "Retry-After": "30"])
        let result = Feed.parse(response: notFound, errorParser: XMLErrorParser())
        #expect(throws: XMLAPIError(status: 404, requestID: "req-1", retryAfter: "30")) { try result.get() }
    }

    @Test func aCustomParsableWithoutAnErrorParserFailsWithUnacceptableStatusNamingTheRequest() throws {
        let result = Feed.parse(response: response(404, "<feed><title>x</title></feed>"), errorParser: nil)
        let error = try #require(throws: FetchError.self) { try result.get() }
        guard case .unacceptableStatus(let answer) = error.fetchKind else {
            Issue.record("expected .unacceptableStatus, got \(error)")
            return
        }
        #expect(answer.status == 404)
        #expect(error.description.hasPrefix("GET http://api.test/feeds/7 → 404"))
    }

    @Test func requireSuccessPassesA2xxResponseThroughWithoutAskingTheErrorParser() throws {
        let ok = response(200, "<feed><title>Ada</title></feed>", headers: ["Content-Type": "application/xml"])
        #expect(try Feed.parse(response: ok, errorParser: XMLErrorParser()).get() == Feed(title: "Ada"))
        let passed = try ok.requireSuccess(errorParser: XMLErrorParser()).get()
        #expect(passed.status == 200)
    }

    @Test func anErrorParserThatReturnsNilLeavesUnacceptableStatus() throws {
        let html = response(503, "<html>down</html>", headers: ["Content-Type": "text/html"])
        let error = try #require(throws: FetchError.self) {
            try html.requireSuccess(errorParser: XMLErrorParser()).get()
        }
        #expect(error.response?.status == 503)
    }

    @Test func aParserReadingOnlyTheStatusAndBodyIsAsked() throws {
        let parser = StatusOnlyParser()
        let notFound = response(404, "gone")
        let expected = XMLAPIError(status: 404, requestID: nil, retryAfter: "4")
        #expect(parser.parseError(from: notFound) as? XMLAPIError == expected)
        #expect(throws: expected) { try Feed.parse(response: notFound, errorParser: parser).get() }
        #expect(throws: FetchError.self) { try Feed.parse(response: response(500, "x"), errorParser: parser).get() }
    }

    @Test func decodableErrorParserReadsTheBodyOfTheWholeResponse() throws {
        let body = #"{"error": true, "reason": "no such user"}"#
        let error = DecodableErrorParser<APIError>().parseError(from: response(404, body))
        #expect(error as? APIError == APIError(error: true, reason: "no such user"))
    }

    @Test func theErrorParserSeesTheHeadersOfARealErrorResponse() async throws {
        let server = try TestServer.running()
        await #expect(throws: XMLAPIError(status: 404, requestID: "req-8f2c", retryAfter: "120")) {
            let _: Feed = try await Session().perform(
                TestRequest(server.url("/xml/404")), errorParser: XMLErrorParser())
        }
        let feed: Feed = try await Session().perform(TestRequest(server.url("/xml/200")), errorParser: XMLErrorParser())
        #expect(feed == Feed(title: "Ada"))
    }

    @Test func aMockedErrorResponseReachesTheErrorParserWithItsHeaders() async throws {
        let mock = MockPerformer { _ in
            MockResponse(
                status: 429, headers: ["Content-Type": "application/xml", "Retry-After": "5"], data: Data("<e/>".utf8))
        }
        await #expect(throws: XMLAPIError(status: 429, requestID: nil, retryAfter: "5")) {
            let _: Feed = try await mock.perform(self.request, errorParser: XMLErrorParser())
        }
    }
}
