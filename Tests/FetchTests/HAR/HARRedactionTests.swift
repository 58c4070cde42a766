import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The secrets redacted without being named: credential headers, names containing `token`, `secret` or
/// `password`, as headers, query parameters, form and multipart fields and JSON keys at any depth, cookies; and
/// replay of what was redacted.
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
        "Api-Key", "X-Session-Id", "X-Amz-Signature",
    ])
    func headersNamingASecretAreRedactedWithoutBeingListed(name: String) throws {
        let entry = try entry("http://h.test/me", headers: [name: Self.secret, "X-Trace": "visible"])
        let headers = Dictionary(uniqueKeysWithValues: entry.request.headers.map { ($0.name.lowercased(), $0.value) })
        #expect(headers[name.lowercased()] == "REDACTED")
        #expect(headers["x-trace"] == "visible")
        #expect(try !fileText(entry).contains(Self.secret))
    }

    @Test func aSecretKeyWrittenWithEscapesInJSONWithATrailingCommaIsRedacted() throws {
        // Foundation's parser reads a trailing comma as JSON, so the walk must too (the fuzzer's find).
        let body = Data(#"{"pass\u0077ord": "hunter2!", "list": [1, 2,],}"#.utf8)
        let redacted = try #require(HARJSON.redacting(body, .default))
        #expect(String(decoding: redacted.body, as: UTF8.self) == #"{"pass\u0077ord": "REDACTED", "list": [1, 2,],}"#)
        #expect(redacted.secrets == ["hunter2!"])
    }

    @Test func responseHeadersNamingASecretAreRedactedToo() throws {
        let entry = try entry("http://h.test/login", responseHeaders: ["X-Refresh-Token": Self.secret])
        #expect(entry.response.headers == [HAR.Field(name: "X-Refresh-Token", value: "REDACTED")])
    }

    @Test(arguments: [
        "access_token", "Token", "client_secret", "password", "X-API-Key", "authorization", "api_key", "key",
        "X-Amz-Signature", "code",
    ])
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

    @Test func jsonKeysNamingASecretAreRedactedInRequestAndResponseAndTheRestIsKeptAsItWas() throws {
        let entry = try entry(
            "http://h.test/token", method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(#"{"user": "ada", "Password": "pw1", "pin_secret": 1234, "keep": {"token": "inner"}}"#.utf8),
            responseHeaders: ["Content-Type": "application/vnd.api+json; charset=utf-8"],
            responseBody: Data(
                #"{ "access_token" : "\#(Self.secret)", "expires_in": 3600.50, "scopes": ["a", "b\"}"] }"#.utf8))
        #expect(
            entry.request.postData?.text
                == #"{"user": "ada", "Password": "REDACTED", "pin_secret": "REDACTED", "keep": {"token": "REDACTED"}}"#)
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

    @Test(arguments: [
        #"{"token": "x""#, #"{"token" "x"}"#, #""token""#, "not json", #"{"token": "x"} trailing"#,
        #"[{"token": "x"]"#,
    ])
    func aBodyThatIsNotJSONIsKeptAsItIs(body: String) throws {
        let entry = try entry(
            "http://h.test/x", method: "POST", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        #expect(entry.request.postData?.text == body)
    }

    /// `text` parsed as JSON, or a recorded issue.
    func parsesAsJSON(_ text: String?) -> Bool {
        do {
            _ = try JSONSerialization.jsonObject(with: Data((text ?? "").utf8))
            return true
        } catch {
            Issue.record("not JSON: \(text ?? "nothing"): \(error)")
            return false
        }
    }

    @Test func jsonKeysNamingASecretAreRedactedAtAnyDepthInObjectsAndArrays() throws {
        let body = #"""
            {"user": {"name": "ada", "credentials": {"password": "nested-\#(Self.secret)"}},
             "list": [{"pwd": "in-array-1"}, {"tokens": ["array-value-1", {"deep": "array-value-2"}]}],
             "keep": [1, 2.5, true, null, {"name": "visible"}], "api_key": {"a": [1, "object-value-3"]}}
            """#
        let entry = try entry(
            "http://h.test/x", method: "POST", headers: ["Content-Type": "application/json"], body: Data(body.utf8),
            responseHeaders: ["Content-Type": "application/json"],
            responseBody: Data(#"[[{"user": {"passwd": "response-nested-1"}}], "x"]"#.utf8))
        let text = try #require(entry.request.postData?.text)
        #expect(
            text == #"""
                {"user": {"name": "ada", "credentials": {"password": "REDACTED"}},
                 "list": [{"pwd": "REDACTED"}, {"tokens": "REDACTED"}],
                 "keep": [1, 2.5, true, null, {"name": "visible"}], "api_key": "REDACTED"}
                """#)
        #expect(parsesAsJSON(text))
        #expect(entry.response.content.text == #"[[{"user": {"passwd": "REDACTED"}}], "x"]"#)
        let file = try fileText(entry)
        for secret in [
            "nested-\(Self.secret)", "in-array-1", "array-value-1", "array-value-2", "object-value-3",
            "response-nested-1",
        ] {
            #expect(!file.contains(secret), "\(secret) is in the file")
        }
        #expect(file.contains("visible"))
    }

    @Test(arguments: ["text/plain", "application/octet-stream", nil] as [String?])
    func aBodyThatParsesAsJSONIsRedactedWhateverItsContentTypeSays(type: String?) throws {
        let body = #"{"session": {"password": "\#(Self.secret)"}, "n": 1}"#
        let entry = try entry(
            "http://h.test/x", method: "POST", headers: type.map { ["Content-Type": $0] } ?? [:],
            body: Data(body.utf8), responseHeaders: type.map { ["Content-Type": $0] } ?? [:],
            responseBody: Data(#"[{"token": "\#(Self.secret)"}]"#.utf8))
        #expect(try !fileText(entry).contains(Self.secret))
        if type == "text/plain" {
            #expect(entry.request.postData?.text == #"{"session": {"password": "REDACTED"}, "n": 1}"#)
            #expect(entry.response.content.text == #"[{"token": "REDACTED"}]"#)
        }
    }

    @Test func aJSONBodyNestedAHundredThousandLevelsDeepIsRedactedWithoutExhaustingTheStack() throws {
        let depth = 100_000
        let body =
            String(repeating: #"{"a":["#, count: depth) + #"{"password":"\#(Self.secret)"}"#
            + String(repeating: "]}", count: depth)
        let entry = try entry(
            "http://h.test/x", method: "POST", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        let text = try #require(entry.request.postData?.text)
        #expect(!text.contains(Self.secret))
        #expect(text.contains(#"{"password":"REDACTED"}"#))
        #expect(text.utf8.count == body.utf8.count - Self.secret.utf8.count + "REDACTED".utf8.count)
    }

    @Test func aRecordingOfAJSONBodyNestedAHundredThousandLevelsDeepReplays() throws {
        let directory = try TemporaryDirectory("HARRedactionTests")
        let fixture = directory.url.appendingPathComponent("deep.har")
        let depth = 100_000
        func deep(_ password: String) -> TestRequest {
            let body =
                String(repeating: "[", count: depth) + #"{"password":"\#(password)"}"#
                + String(repeating: "]", count: depth)
            return TestRequest(
                "http://h.test/deep", method: .post, headers: ["Content-Type": "application/json"],
                body: Data(body.utf8))
        }
        let recorded = try MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }.with(.record(to: fixture))
        let live = Captured<Result<Person, any Error>>()
        recorded.perform(deep(Self.secret), completion: live.capture)
        #expect(try live.value?.get().name == "Ada")
        #expect(!String(decoding: try Data(contentsOf: fixture), as: UTF8.self).contains(Self.secret))
        let replayed = Captured<Result<Person, any Error>>()
        try MockPerformer(replaying: fixture).perform(deep("another-password"), completion: replayed.capture)
        #expect(try replayed.value?.get().name == "Ada")
    }

    @Test(arguments: ["password", "token", "pwd", "passwd", "api_key"])
    func formFieldsOfTheseNamesAreRedactedInRequestsAndResponses(name: String) throws {
        let form = "user=ada&\(name)=\(Self.secret)&note=a%20b+c"
        let entry = try entry(
            "http://h.test/login", method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(form.utf8), responseHeaders: ["Content-Type": "application/x-www-form-urlencoded"],
            responseBody: Data("ok=1&\(name)=\(Self.secret)".utf8))
        // The other fields keep their bytes as they were sent.
        #expect(entry.request.postData?.text == "user=ada&\(name)=REDACTED&note=a%20b+c")
        #expect(entry.response.content.text == "ok=1&\(name)=REDACTED")
        #expect(try !fileText(entry).contains(Self.secret))
    }

    @Test(arguments: ["password", "token", "pwd", "passwd", "api_key"])
    func multipartFieldsOfTheseNamesAreRedactedAndTheBodyKeepsItsStructure(name: String) throws {
        let boundary = "Fetch-b0undary-42"
        let body = [
            "--\(boundary)", #"Content-Disposition: form-data; name="user""#, "", "ada",
            "--\(boundary)", #"Content-Disposition: form-data; name="\#(name)""#, "", "multi-\(Self.secret)",
            "--\(boundary)", #"Content-Disposition: form-data; name="meta""#, "Content-Type: application/json", "",
            #"{"inner": {"password": "json-in-part-1"}}"#,
            "--\(boundary)", #"Content-Disposition: form-data; name="photo"; filename="a.txt""#, "", "pixels",
            "--\(boundary)--", "",
        ].joined(separator: "\r\n")
        let entry = try entry(
            "http://h.test/upload", method: "POST",
            headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: Data(body.utf8))
        let expected = [
            "--\(boundary)", #"Content-Disposition: form-data; name="user""#, "", "ada",
            "--\(boundary)", #"Content-Disposition: form-data; name="\#(name)""#, "", "REDACTED",
            "--\(boundary)", #"Content-Disposition: form-data; name="meta""#, "Content-Type: application/json", "",
            #"{"inner": {"password": "REDACTED"}}"#,
            "--\(boundary)", #"Content-Disposition: form-data; name="photo"; filename="a.txt""#, "", "pixels",
            "--\(boundary)--", "",
        ].joined(separator: "\r\n")
        #expect(entry.request.postData?.text == expected)
        let file = try fileText(entry)
        #expect(!file.contains(Self.secret) && !file.contains("json-in-part-1"))
    }

    @Test func cookieValuesAreSecretsInBothDirectionsAndAreScrubbedWhereverTheServerEchoesThem() throws {
        let requestCookie = "rq-cookie-7f3a9c"
        let responseCookie = "rs-cookie-2b8e1d"
        let entry = try entry(
            "http://h.test/me", headers: ["Cookie": "session=\(requestCookie); theme=dark"],
            responseHeaders: [
                "Set-Cookie": "sid=\(responseCookie); Path=/; HttpOnly", "Content-Type": "text/html",
                "X-Echo": "you are \(requestCookie)",
            ],
            responseBody: Data("<p>session \(requestCookie), new sid \(responseCookie)</p>".utf8))
        #expect(entry.request.cookies.map(\.value) == ["REDACTED", "REDACTED"])
        #expect(entry.response.cookies.map(\.value) == ["REDACTED"])
        #expect(entry.response.content.text == "<p>session REDACTED, new sid REDACTED</p>")
        let file = try fileText(entry)
        #expect(!file.contains(requestCookie) && !file.contains(responseCookie))
    }

    @Test func aSecretQueryItemOfALocationIsScrubbedFromTheHeaderAndTheBody() throws {
        let code = "oauth-code-5e1f0a"
        let entry = try entry(
            "http://h.test/authorize",
            responseHeaders: [
                "Location": "https://app.test/callback?code=\(code)&state=s1", "Content-Type": "text/html",
            ],
            responseBody: Data("<a href=\"https://app.test/callback?code=\(code)\">go</a>".utf8))
        #expect(entry.response.redirectURL == "https://app.test/callback?code=REDACTED&state=s1")
        #expect(try !fileText(entry).contains(code))
    }

    @Test func aRecordedExchangeWithANestedRedactedJSONPasswordReplaysForAnyPassword() throws {
        let directory = try TemporaryDirectory("HARRedactionTests")
        let fixture = directory.url.appendingPathComponent("nested.har")
        let url = try #require(URL(string: "http://h.test/login"))
        func login(_ password: String) -> TestRequest {
            TestRequest(
                url, method: .post, headers: ["Content-Type": "application/json"],
                body: Data(#"{"user": {"name": "ada", "auth": [{"password": "\#(password)"}]}}"#.utf8))
        }
        let recorded = try MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }.with(.record(to: fixture))
        let live = Captured<Result<Person, any Error>>()
        recorded.perform(login(Self.secret), completion: live.capture)
        #expect(try live.value?.get().name == "Ada")
        #expect(!String(decoding: try Data(contentsOf: fixture), as: UTF8.self).contains(Self.secret))
        let verdict = try HARValidator.check(fixture)
        #expect(verdict.isValid, "\(verdict.output)")

        let replayed = Captured<Result<Person, any Error>>()
        try MockPerformer(replaying: fixture).perform(login("another-password"), completion: replayed.capture)
        #expect(try replayed.value?.get().name == "Ada")
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
