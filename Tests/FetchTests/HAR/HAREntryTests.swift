import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Entries built from an exchange: how bodies are stored, and that secrets never reach the file.
@Suite struct HAREntryTests {
    static let token = "sk-live-4f9a2c77e1b04d"
    let started = Date(timeIntervalSince1970: 1_796_028_132.345)

    func entry(
        _ urlRequest: URLRequest,
        status: Int = 200,
        headers: HeaderFields = [:],
        body: Data? = nil,
        redaction: Redaction = .default,
        maximumMultipartSize: Int = HAR.Entry.defaultMultipartLimit
    ) -> HAR.Entry {
        let request = TestRequest(urlRequest.url ?? URL(fileURLWithPath: "/"))
        let response = Response(status: status, headers: headers, data: body, originalRequest: request)
        return HAR.Entry(
            request: urlRequest, response: response, startedDateTime: started, timings: .total(0.012),
            redaction: redaction, maximumMultipartSize: maximumMultipartSize)
    }

    func urlRequest(
        _ url: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = body
        return request
    }

    /// The whole entry as it is written to a file.
    func fileText(_ entry: HAR.Entry) throws -> String {
        var archive = HAR()
        archive.log.entries = [entry]
        return String(decoding: try archive.encoded(), as: UTF8.self)
    }

    @Test func recordsTheRequestAndResponseWithTheirTimings() throws {
        let sent = try urlRequest(
            "http://api.example.test:8080/search?q=swift%20http&page=2", headers: ["Accept": "application/json"])
        let entry = entry(sent, status: 404, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        #expect(entry.request.method == "GET")
        #expect(entry.request.url == "http://api.example.test:8080/search?q=swift%20http&page=2")
        #expect(
            entry.request.queryString == [
                HAR.Field(name: "q", value: "swift http"), HAR.Field(name: "page", value: "2"),
            ])
        #expect(entry.request.headers == [HAR.Field(name: "Accept", value: "application/json")])
        #expect(entry.request.postData == nil && entry.request.bodySize == 0)
        #expect(entry.response.status == 404 && entry.response.statusText == "Not Found")
        #expect(entry.response.content.text == "{}" && entry.response.content.size == 2)
        #expect(entry.timings.wait == 12 && entry.time == 12)
        #expect(entry.startedDateTime == started)
    }

    @Test func storesTextBodiesAsTextAndOthersAsBase64() throws {
        let texts = [
            "application/json", "application/problem+json; charset=utf-8", "text/plain", "text/html; charset=utf-8",
            "application/x-www-form-urlencoded",
        ]
        for type in texts {
            let entry = entry(
                try urlRequest("http://h.test/"), headers: ["Content-Type": type], body: Data("é ok".utf8))
            #expect(entry.response.content.text == "é ok" && entry.response.content.encoding == nil, "\(type)")
        }
        let bytes = Data([0x00, 0xFF, 0x10, 0x80])
        for (type, body) in [
            ("image/png", bytes), ("application/octet-stream", Data("text".utf8)), ("text/plain", bytes),
        ] {
            let entry = entry(try urlRequest("http://h.test/"), headers: ["Content-Type": type], body: body)
            #expect(entry.response.content.encoding == "base64", "\(type)")
            #expect(entry.response.content.text == body.base64EncodedString(), "\(type)")
        }
        let upload = entry(
            try urlRequest(
                "http://h.test/", method: "PUT", headers: ["Content-Type": "application/octet-stream"], body: bytes))
        #expect(upload.request.postData?.encoding == "base64")
        #expect(upload.request.postData?.text == bytes.base64EncodedString())
        #expect(upload.request.bodySize == 4)
    }

    @Test func keepsOnlyTheFirstBytesOfALargeMultipartBody() throws {
        let body = Data(
            ("--B\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n" + String(repeating: "x", count: 500)).utf8)
        let sent = try urlRequest(
            "http://h.test/upload", method: "POST", headers: ["Content-Type": "multipart/form-data; boundary=B"],
            body: body)
        let cut = entry(sent, maximumMultipartSize: 100)
        #expect(cut.request.postData?.text?.utf8.count == 100)
        #expect(cut.request.bodySize == body.count)
        #expect(cut.request.postData?.comment == "Fetch kept the first 100 of the body's \(body.count) bytes.")
        let whole = entry(sent)
        #expect(whole.request.postData?.text == String(decoding: body, as: UTF8.self))
        #expect(whole.request.postData?.comment == nil)
    }

    @Test func redactsTheDefaultHeadersInRequestResponseAndCookies() throws {
        let sent = try urlRequest(
            "http://h.test/me",
            headers: [
                "Authorization": "Bearer \(Self.token)", "Proxy-Authorization": "Basic \(Self.token)",
                "Cookie": "session=\(Self.token); theme=dark", "X-Trace": "visible",
            ])
        let entry = entry(
            sent, headers: ["Set-Cookie": "refresh=\(Self.token); Path=/; HttpOnly", "Content-Type": "text/plain"],
            body: Data("hello".utf8))
        let requestHeaders = Dictionary(uniqueKeysWithValues: entry.request.headers.map { ($0.name, $0.value) })
        #expect(requestHeaders["Authorization"] == "REDACTED")
        #expect(requestHeaders["Proxy-Authorization"] == "REDACTED")
        #expect(requestHeaders["Cookie"] == "REDACTED")
        #expect(requestHeaders["X-Trace"] == "visible")
        #expect(entry.request.cookies.map(\.name) == ["session", "theme"])
        #expect(entry.request.cookies.allSatisfy { $0.value == "REDACTED" })
        #expect(entry.response.headers.first { $0.name == "Set-Cookie" }?.value == "REDACTED")
        let cookie = try #require(entry.response.cookies.first)
        #expect(cookie.name == "refresh" && cookie.value == "REDACTED" && cookie.path == "/" && cookie.httpOnly == true)
        #expect(try !fileText(entry).contains(Self.token))
    }

    @Test func namesGivenAddToTheDefaultsAndNeverReplaceThem() throws {
        let redaction = Redaction(headers: ["X-Session", "x-api-key"], queryItems: ["api_key"])
        #expect(redaction.headers == Redaction.defaultHeaders + ["X-Session"])
        #expect(redaction.redactsHeader("authorization") && redaction.redactsHeader("x-session"))
        let sent = try urlRequest(
            "http://h.test/items?api_key=\(Self.token)&page=1",
            headers: ["Authorization": "Bearer \(Self.token)", "X-Session": Self.token])
        let entry = entry(sent, redaction: redaction)
        #expect(entry.request.url == "http://h.test/items?api_key=REDACTED&page=1")
        #expect(
            entry.request.queryString == [
                HAR.Field(name: "api_key", value: "REDACTED"), HAR.Field(name: "page", value: "1"),
            ])
        #expect(entry.request.headers.allSatisfy { $0.value == "REDACTED" })
    }

    @Test(arguments: [
        Redaction.default,
        Redaction(headers: ["X-Other"]),
        Redaction(headers: ["Authorization"], queryItems: ["token", "unused"]),
        ["authorization", "token"] as Redaction,
    ])
    func theTokenAppearsNowhereInTheFileWhateverNamesArePassed(redaction: Redaction) throws {
        // The server echoes the token in its body and in a redirect, and the URL's password holds it too.
        let sent = try urlRequest(
            "http://user:\(Self.token)@h.test/login?next=%2Fhome",
            method: "POST",
            headers: [
                "Authorization": "Bearer \(Self.token)", "Cookie": "sid=\(Self.token)",
                "Content-Type": "application/json",
            ],
            body: Data(#"{"user":"ada"}"#.utf8))
        let echoed = Data(#"{"seen":"Bearer \#(Self.token)","cookie":"sid=\#(Self.token)"}"#.utf8)
        let entry = entry(
            sent, status: 302,
            headers: [
                "Location": "/home?session=\(Self.token)", "Content-Type": "application/octet-stream",
                "Set-Cookie": "sid=\(Self.token); Secure",
            ],
            body: echoed, redaction: redaction)
        let text = try fileText(entry)
        #expect(!text.contains(Self.token))
        #expect(!text.contains(Data(Self.token.utf8).base64EncodedString().dropLast(4)))
        let stored = try #require(entry.response.content.text.flatMap { Data(base64Encoded: $0) })
        #expect(!String(decoding: stored, as: UTF8.self).contains(Self.token))
        #expect(text.contains("REDACTED"))
    }

    @Test func redactsNamedFieldsOfAFormBody() throws {
        let sent = try urlRequest(
            "http://h.test/login", method: "POST",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("user=ada&password=\(Self.token)".utf8))
        let entry = entry(sent, redaction: Redaction(queryItems: ["password"]))
        #expect(entry.request.postData?.text == "user=ada&password=REDACTED")
    }

    @Test func buildsFromAFetchRequestAndNamesTheURLThatAnsweredAfterRedirects() throws {
        let request = APIRequest(try #require(URL(string: "http://h.test/old"))).header("Accept", "text/plain")
        let response = Response(
            status: 200, data: Data("moved".utf8), originalRequest: request,
            url: URL(string: "http://h.test/new"))
        let entry = try HAR.Entry(
            request: request, response: response, startedDateTime: started, timings: .total(0.001))
        #expect(entry.request.url == "http://h.test/old")
        #expect(entry.request.headers == [HAR.Field(name: "Accept", value: "text/plain")])
        #expect(entry.comment == "Answered by http://h.test/new after redirects.")
    }
}
