import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct FetchErrorTests {
    @Test func unacceptableStatusNamesMethodURLStatusAndBody() {
        let response = Response(
            status: 404,
            data: Data(#"{"reason":"no such user"}"#.utf8),
            originalRequest: TestRequest("http://127.0.0.1:8080/users/7", method: .delete)
        )
        let error = FetchError.unacceptableStatus(response)
        #expect(
            error.description == #"DELETE http://127.0.0.1:8080/users/7 → 404 Not Found: {"reason":"no such user"}"#)
        #expect(error.errorDescription == error.description)
        #expect(error.localizedDescription == error.description)
    }

    @Test func aRedirectedResponseNamesTheFinalURLToo() throws {
        let response = Response(
            status: 500,
            originalRequest: TestRequest("http://a.test/old"),
            url: TestRequest("http://a.test/new").url
        )
        #expect(
            FetchError.unacceptableStatus(response).description
                == "GET http://a.test/old (redirected to http://a.test/new) → 500 Internal Server Error: (empty body)")
    }

    @Test func bodiesAreQuotedUpTo1KB() {
        let body = String(repeating: "a", count: 1024) + String(repeating: "b", count: 100)
        let description = FetchError.unacceptableStatus(response(status: 500, body: body)).description
        #expect(description.contains(String(repeating: "a", count: 1024) + "… (1124 bytes in all)"))
        #expect(!description.contains("ab"))
    }

    @Test func binaryBodiesAreCountedNotQuoted() {
        let binary = Response(
            status: 500, data: Data([0x00, 0x01, 0xFF, 0xFE]), originalRequest: TestRequest("http://a.test/"))
        #expect(FetchError.unacceptableStatus(binary).description.hasSuffix("(4 bytes of binary data)"))
    }

    @Test func multiLineBodiesAreQuotedOnOneLine() {
        let description = FetchError.unacceptableStatus(response(status: 400, body: "first\r\nsecond\n")).description
        #expect(description.hasSuffix("400 Bad Request: first second "))
    }

    @Test func unregisteredStatusesShowTheNumberAlone() {
        #expect(FetchError.unacceptableStatus(response(status: 599)).description.hasSuffix("→ 599: (empty body)"))
    }

    @Test func decodingErrorsNameThePathWhatWasWrongAndTheBody() throws {
        let body = #"{"users": [{"name": 7}]}"#
        struct Page: Decodable, Parsable {
            struct Item: Decodable { let name: String }
            let users: [Item]
        }
        let error = try fetchError(Page.parse(response: response(body: body), errorParser: nil))
        #expect(
            error.description.hasPrefix(
                "GET http://example.test/x → 200 OK, but the body could not be decoded: expected String at users[0].name"
            ))
        #expect(error.description.hasSuffix("Body: \(body)"))
    }

    @Test func transportErrorsNameTheURLAndTheCode() throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/"))
        let error = FetchError.transport(URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        #expect(error.description.hasPrefix("http://127.0.0.1:1/: could not reach the server: "))
        let named = error.naming(TestRequest(url, method: .post))
        #expect(named.description.hasPrefix("POST http://127.0.0.1:1/: could not reach the server: "))
        #expect(error.description.hasSuffix("(URLError -1004)"))
    }

    @Test func encodingErrorsSayWhatCouldNotBeEncoded() {
        let context = EncodingError.Context(codingPath: [], debugDescription: "Unable to encode Double.infinity")
        let error = FetchError.encoding(
            EncodingError.invalidValue(Double.infinity, context), request: TestRequest("https://api.example.com/x"))
        #expect(
            error.description
                == "GET https://api.example.com/x: could not encode the request body: invalid value inf at the top level:"
                + " Unable to encode Double.infinity"
        )
    }

    @Test func onlyErrorsWithAnAnswerCarryAResponse() {
        #expect(FetchError.unacceptableStatus(response(status: 500)).response?.status == 500)
        let context = DecodingError.Context(codingPath: [], debugDescription: "x")
        #expect(FetchError.decoding(.dataCorrupted(context), response(status: 200)).response?.status == 200)
        #expect(FetchError.timedOut().response == nil)
        #expect(FetchError.cancelled().response == nil)
        #expect(FetchError.notHTTPResponse().response == nil)
        #expect(FetchError.invalidRequest("x").response == nil)
        #expect(FetchError.transport(URLError(.notConnectedToInternet)).response == nil)
    }

    @Test func everyCaseDescribesItselfInOneLine() {
        let context = DecodingError.Context(codingPath: [], debugDescription: "x")
        let errors: [FetchError] = [
            .invalidRequest("GET x: why"), .encoding(CocoaError(.coderInvalidValue)),
            .transport(URLError(.networkConnectionLost)), .timedOut(), .cancelled(), .notHTTPResponse(),
            .unacceptableStatus(response(status: 500, body: "a\nb")),
            .decoding(.dataCorrupted(context), response(body: "a\nb")),
        ]
        for error in errors {
            #expect(!error.description.isEmpty)
            #expect(!error.description.contains("\n"), "\(error.description)")
        }
    }
}
