import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The secrets redacted without being named: credential headers, names containing `token`, `secret` or
/// `password`, as headers, query parameters, form fields and top-level JSON keys; and replay of what was redacted.
@Suite struct HARRedactionTests {
    static let secret = "s3cr3t-value-8d1f4b"

    struct Person: Decodable, Parsable {
        let id: Int
        let name: String
    }
    let started = Date(timeIntervalSince1970: 1_796_028_132)

    func entry(
        _ url: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
        responseHeaders: HeaderFields = [:], responseBody: Data? = nil, redaction: Redaction = .default
    ) throws -> HAR.Entry {
        var urlRequest = URLRequest(url: try #require(URL(string: url)))
        urlRequest.httpMethod = method
        for (name, value) in headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = body
        let response = Response(
            status: 200, headers: responseHeaders, data: responseBody,
            originalRequest: TestRequest(try #require(urlRequest.url)))
        return HAR.Entry(
            request: urlRequest, response: response, startedDateTime: started, timings: .total(0.001),
            redaction: redaction)
    }

    func fileText(_ entry: HAR.Entry) throws -> String {
        var archive = HAR()
        archive.log.entries = [entry]
        return String(decoding: try archive.encoded(), as: UTF8.self)
    }

    @Test(arguments: [
        "X-API-Key", "x-api-key", "X-Auth-Token", "X-CSRF-TOKEN", "X-Client-Secret", "X-Password", "Authorization",
    ])
    func headersNamingASecretAreRedactedWithoutBeingListed(name: String) throws {
        let entry = try entry("http://h.test/me", headers: [name: Self.secret, "X-Trace": "visible"])
        let headers = Dictionary(uniqueKeysWithValues: entry.request.headers.map { ($0.name.lowercased(), $0.value) })
        #expect(headers[name.lowercased()] == "REDACTED")
        #expect(headers["x-trace"] == "visible")
        #expect(try !fileText(entry).contains(Self.secret))
    }

    @Test func responseHeadersNamingASecretAreRedactedToo() throws {
        let entry = try entry("http://h.test/login", responseHeaders: ["X-Refresh-Token": Self.secret])
        #expect(entry.response.headers == [HAR.Field(name: "X-Refresh-Token", value: "REDACTED")])
    }

    @Test(arguments: ["access_token", "Token", "client_secret", "password", "X-API-Key", "authorization"])
    func queryItemsNamingASecretAreRedactedWithoutBeingListed(name: String) throws {
        let entry = try entry("http://h.test/items?\(name)=\(Self.secret)&page=2")
        #expect(entry.request.url == "http://h.test/items?\(name)=REDACTED&page=2")
        #expect(
            entry.request.queryString == [
                HAR.Field(name: name, value: "REDACTED"), HAR.Field(name: "page", value: "2"),
            ])
        #expect(try !fileText(entry).contains(Self.secret))
    }

    @Test func formFieldsNamingASecretAreRedactedWithoutBeingListed() throws {
        let entry = try entry(
            "http://h.test/login", method: "POST",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("user=ada&Password=pw&refresh_token=\(Self.secret)".utf8))
        #expect(entry.request.postData?.text == "user=ada&Password=REDACTED&refresh_token=REDACTED")
    }

    @Test func topLevelJSONKeysNamingASecretAreRedactedInRequestAndResponseAndTheRestIsKeptAsItWas() throws {
        let entry = try entry(
            "http://h.test/token", method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(#"{"user": "ada", "Password": "pw1", "pin_secret": 1234, "keep": {"token": "inner"}}"#.utf8),
            responseHeaders: ["Content-Type": "application/vnd.api+json; charset=utf-8"],
            responseBody: Data(
                #"{ "access_token" : "\#(Self.secret)", "expires_in": 3600.50, "scopes": ["a", "b\"}"] }"#.utf8))
        #expect(
            entry.request.postData?.text
                == #"{"user": "ada", "Password": "REDACTED", "pin_secret": "REDACTED", "keep": {"token": "inner"}}"#)
        #expect(
            entry.response.content.text
                == #"{ "access_token" : "REDACTED", "expires_in": 3600.50, "scopes": ["a", "b\"}"] }"#)
        #expect(try !fileText(entry).contains(Self.secret))
    }

    @Test func aSecretFromAJSONBodyIsScrubbedWhereverElseItAppears() throws {
        let entry = try entry(
            "http://h.test/login", method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(#"{"password":"\#(Self.secret)"}"#.utf8),
            responseHeaders: ["Content-Type": "text/plain", "Location": "/home?x=\(Self.secret)"],
            responseBody: Data("you sent \(Self.secret)".utf8))
        #expect(entry.response.content.text == "you sent REDACTED")
        #expect(try !fileText(entry).contains(Self.secret))
    }

    @Test(arguments: [#"[{"token": "x"}]"#, #"{"token": "x""#, #"{"token" "x"}"#, #""token""#, "not json"])
    func aBodyThatIsNotAJSONObjectIsKeptAsItIs(body: String) throws {
        let entry = try entry(
            "http://h.test/x", method: "POST", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        #expect(entry.request.postData?.text == body)
    }

    @Test func namesAddedNeedNotRepeatTheDefaultsAndMatchInAnyCase() {
        let redaction = Redaction(headers: ["X-Session"], queryItems: ["TENANT"])
        #expect(redaction.redactsHeader("x-session") && redaction.redactsHeader("authorization"))
        #expect(redaction.redactsHeader("X-Upstream-Token") && !redaction.redactsHeader("X-Trace"))
        #expect(redaction.redactsQueryItem("tenant") && redaction.redactsQueryItem("ACCESS_TOKEN"))
        #expect(redaction.redactsQueryItem("x-api-key") && !redaction.redactsQueryItem("page"))
        #expect(Redaction.default.redactsQueryItem("password") && !Redaction.default.redactsQueryItem("tenant"))
    }

    @Test(arguments: ["Api-Key", "X-Session-Id", "X-Amz-Signature", "X-Auth-Token", "X-Passwd", "X-ApiKey"])
    func theIssue30HeaderNamesAreSecretsByDefault(name: String) {
        #expect(Redaction.default.redactsHeader(name))
    }

    @Test(arguments: ["api_key", "key", "X-Amz-Signature", "code", "pwd", "passwd", "sig", "sessionid"])
    func theIssue30ParameterNamesAreSecretsByDefault(name: String) {
        #expect(Redaction.default.redactsQueryItem(name))
        #expect(!Redaction.default.redactsQueryItem("keyboard") && !Redaction.default.redactsQueryItem("zipcode"))
    }

    @Test func aRecordedExchangeWithARedactedTokenQueryItemReplaysForTheRealToken() throws {
        let directory = try TemporaryDirectory("HARRedactionTests")
        let fixture = directory.url.appendingPathComponent("token.har")
        let baseURL = try #require(URL(string: "http://h.test"))
        let recorded = try MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }.with(.record(to: fixture))
        let request = APIRequest(baseURL.appending(path: "users/1")).query("access_token", Self.secret)
            .query("page", "2").header("X-Auth-Token", Self.secret)
        let live = Captured<Result<Person, any Error>>()
        recorded.perform(request, completion: live.capture)
        #expect(try live.value?.get().name == "Ada")
        let text = String(decoding: try Data(contentsOf: fixture), as: UTF8.self)
        #expect(!text.contains(Self.secret))
        #expect(text.contains("access_token=REDACTED"))
        let verdict = try HARValidator.check(fixture)
        #expect(verdict.isValid, "\(verdict.output)")

        let replayed = Captured<Result<Person, any Error>>()
        try MockPerformer(replaying: fixture, matching: HARMatcher(includingHeaders: true))
            .perform(request, completion: replayed.capture)
        #expect(try replayed.value?.get().name == "Ada")

        let otherPage = Captured<Result<Person, any Error>>()
        try MockPerformer(replaying: fixture).perform(
            APIRequest(baseURL.appending(path: "users/1")).query("access_token", "other").query("page", "3"),
            completion: otherPage.capture)
        #expect(throws: (any Error).self) { try otherPage.value?.get() }
    }
}
