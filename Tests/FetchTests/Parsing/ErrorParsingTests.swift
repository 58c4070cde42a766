import Fetch
import Foundation
import Testing

@Suite struct ErrorParsingTests {
    /// An error response with `status` and `body`, built through `Response`'s public initialiser.
    private static func response(_ status: Int, _ body: Data?) -> Response {
        Response(status: status, data: body, originalRequest: TestRequest("http://api.test/users/7"))
    }

    @Test func decodableErrorParserDecodesTheErrorBody() throws {
        let parser = DecodableErrorParser<APIError>()
        let error = parser.parseError(
            from: Self.response(404, Data(#"{"error": true, "reason": "no such user"}"#.utf8)))
        #expect(error as? APIError == APIError(error: true, reason: "no such user"))
    }

    @Test func decodableErrorParserReturnsNilForBodiesThatAreNotItsErrors() {
        let parser = DecodableErrorParser<APIError>()
        #expect(parser.parseError(from: Self.response(502, Data("<html>Bad Gateway</html>".utf8))) == nil)
        #expect(parser.parseError(from: Self.response(500, Data())) == nil)
        #expect(parser.parseError(from: Self.response(500, nil)) == nil)
    }

    @Test func decodableErrorParserUsesTheGivenDecoder() {
        struct SnakeError: Error, Decodable {
            let errorCode: Int
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let error = DecodableErrorParser<SnakeError>(decoder: decoder)
            .parseError(from: Self.response(400, Data(#"{"error_code": 17}"#.utf8)))
        #expect((error as? SnakeError)?.errorCode == 17)
    }
}
