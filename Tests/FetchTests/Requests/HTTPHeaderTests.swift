import Fetch
import Foundation
import Testing

@Suite struct HTTPHeaderTests {
    @Test func typedHelpersNameTheirFields() {
        #expect(HTTPHeader.contentType("text/plain") == HTTPHeader(name: "Content-Type", value: "text/plain"))
        #expect(HTTPHeader.accept("application/json") == HTTPHeader(name: "Accept", value: "application/json"))
        #expect(HTTPHeader.userAgent("App/1.0") == HTTPHeader(name: "User-Agent", value: "App/1.0"))
        #expect(
            HTTPHeader.authorization(bearerToken: "abc.def")
                == HTTPHeader(name: "Authorization", value: "Bearer abc.def")
        )
    }

    @Test func basicAuthorizationIsTheBase64OfUTF8Credentials() throws {
        // The examples of RFC 7617, §2 and §2.1.
        #expect(
            HTTPHeader.authorization(username: "Aladdin", password: "open sesame").value
                == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(HTTPHeader.authorization(username: "test", password: "123£").value == "Basic dGVzdDoxMjPCow==")
        #expect(HTTPHeader.authorization(username: "u", password: "a:b").value == "Basic dTphOmI=")
    }

    @Test func aUsernameWithAColonIsReportedWhenTheRequestIsBuiltNotByTheModifier() throws {
        let request = APIRequest(try #require(URL(string: "https://api.example.com/login")))
            .header(.authorization(username: "a:b", password: "c"))
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected .invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("colon"))
        #expect(reason.contains("GET https://api.example.com/login"))
    }

    @Test func mergingKeepsTheRequestsFieldsOverDefaultsIgnoringCase() {
        let merged = HTTPHeader.merged(
            ["content-type": "text/plain", "X-Mine": "1"],
            over: ["Content-Type": "application/json", "Accept": "*/*"]
        )
        #expect(merged == ["content-type": "text/plain", "X-Mine": "1", "Accept": "*/*"])
    }

    @Test func mergingOverNoHeadersGivesTheDefaults() {
        #expect(HTTPHeader.merged([:], over: ["Accept": "*/*"]) == ["Accept": "*/*"])
        #expect(HTTPHeader.merged(["A": "1"], over: [:]) == ["A": "1"])
    }
}
