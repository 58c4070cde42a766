import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct RequestTests {
    struct Minimal: Request {
        var url: URL { URL(fileURLWithPath: "/").deletingLastPathComponent() }
    }

    struct GetUser: Request {
        let id: Int
        var url: URL {
            var components = URLComponents()
            components.scheme = "https"
            components.host = "api.example.com"
            components.path = "/users/\(id)"
            return components.url ?? URL(fileURLWithPath: "/")
        }
    }

    @Test func defaultsAreGetWithNoHeadersBodyOrTimeout() throws {
        let request = GetUser(id: 7)
        #expect(request.method == .get)
        #expect(request.headers.isEmpty)
        #expect(request.body == nil)
        #expect(request.timeout == nil)
        let urlRequest = try request.makeURLRequest()
        #expect(urlRequest.url?.absoluteString == "https://api.example.com/users/7")
        #expect(urlRequest.httpMethod == "GET")
        #expect(urlRequest.httpBody == nil)
    }

    @Test func makeURLRequestCopiesMethodHeadersBodyAndTimeout() throws {
        let body = Data(#"{"name":"Ada"}"#.utf8)
        let request = TestRequest(
            try #require(URL(string: "https://api.example.com/users")),
            method: .post,
            headers: ["Content-Type": "application/json", "X-Request-ID": "42"],
            body: body,
            timeout: 2.5
        )
        let urlRequest = try request.makeURLRequest()
        #expect(urlRequest.httpMethod == "POST")
        #expect(urlRequest.value(forHTTPHeaderField: "content-type") == "application/json")
        #expect(urlRequest.value(forHTTPHeaderField: "X-Request-ID") == "42")
        #expect(urlRequest.httpBody == body)
        #expect(urlRequest.timeoutInterval == 2.5)
    }

    @Test(arguments: ["line\r\nX-Injected: 1", "line\nbreak", "nul\0byte"])
    func headerValuesWithLineBreaksOrNULAreRejected(value: String) throws {
        let request = TestRequest("https://api.example.com/", headers: ["X-Note": value])
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("GET https://api.example.com/"))
        #expect(reason.contains("X-Note"))
    }

    @Test(arguments: ["", "X Note", "X-Note:", "Bad\r\nName", "Ünïcode"])
    func headerNamesThatAreNotTokensAreRejected(name: String) throws {
        let request = TestRequest("https://api.example.com/", headers: [name: "1"])
        #expect(throws: FetchError.self) { try request.makeURLRequest() }
    }

    @Test func relativeURLsAreRejectedWithTheReason() throws {
        let request = TestRequest(try #require(URL(string: "users/1")))
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        #expect(error.description.contains("users/1"))
        #expect(error.description.contains("not absolute"))
    }

    @Test func aRequestCanBuildItsOwnURLRequest() throws {
        struct Cached: Request {
            var url: URL { URL(fileURLWithPath: "/tmp") }
            func makeURLRequest() throws -> URLRequest {
                URLRequest(url: url, cachePolicy: .returnCacheDataDontLoad)
            }
        }
        #expect(try Cached().makeURLRequest().cachePolicy == .returnCacheDataDontLoad)
    }
}
