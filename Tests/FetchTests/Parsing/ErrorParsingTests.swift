import Fetch
import Foundation
import Testing

@Suite struct ErrorParsingTests {
    @Test func decodableErrorParserDecodesTheErrorBody() throws {
        let parser = DecodableErrorParser<APIError>()
        let error = parser.parseError(from: Data(#"{"error": true, "reason": "no such user"}"#.utf8), status: 404)
        #expect(error as? APIError == APIError(error: true, reason: "no such user"))
    }

    @Test func decodableErrorParserReturnsNilForBodiesThatAreNotItsErrors() {
        let parser = DecodableErrorParser<APIError>()
        #expect(parser.parseError(from: Data("<html>Bad Gateway</html>".utf8), status: 502) == nil)
        #expect(parser.parseError(from: Data(), status: 500) == nil)
        #expect(parser.parseError(from: nil, status: 500) == nil)
    }

    @Test func decodableErrorParserUsesTheGivenDecoder() {
        struct SnakeError: Error, Decodable {
            let errorCode: Int
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let error = DecodableErrorParser<SnakeError>(decoder: decoder)
            .parseError(from: Data(#"{"error_code": 17}"#.utf8), status: 400)
        #expect((error as? SnakeError)?.errorCode == 17)
    }
}
