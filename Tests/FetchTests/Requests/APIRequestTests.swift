import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct APIRequestTests {
    let base = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")

    struct Event: Codable, Equatable {
        let name: String
        let at: Date
    }

    @Test func defaultsToAGetOfTheURLWithNothingElse() throws {
        let urlRequest = try APIRequest(base).makeURLRequest()
        #expect(urlRequest.url == base)
        #expect(urlRequest.httpMethod == "GET")
        #expect(urlRequest.allHTTPHeaderFields ?? [:] == [:])
        #expect(urlRequest.httpBody == nil)
    }

    @Test func modifiersSetMethodPathQueryHeadersAndTimeout() throws {
        let request = APIRequest(base)
            .method(.put)
            .path("users", "ada/l")
            .query("q", "a+b")
            .query([URLQueryItem(name: "flag", value: nil)])
            .header("X-Trace", "1")
            .header(.accept("application/json"))
            .timeout(2.5)
        let urlRequest = try request.makeURLRequest()
        #expect(urlRequest.httpMethod == "PUT")
        #expect(urlRequest.url?.absoluteString == "https://api.example.com/v1/users/ada%2Fl?q=a%2Bb&flag")
        #expect(request.url == urlRequest.url)
        #expect(urlRequest.value(forHTTPHeaderField: "x-trace") == "1")
        #expect(urlRequest.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(urlRequest.timeoutInterval == 2.5)
        #expect(request.headers == ["X-Trace": "1", "Accept": "application/json"])
    }

    @Test func aHeaderReplacesAnotherOfTheSameNameInAnyCase() throws {
        let request = APIRequest(base).header("accept", "text/html").header(.accept("application/json"))
        #expect(request.headers == ["Accept": "application/json"])
    }

    @Test func defaultHeadersDoNotOverrideTheRequestsOwn() throws {
        let request = APIRequest(base)
            .header("user-agent", "Mine/2")
            .defaultHeaders(["User-Agent": "Default/1", "Accept": "*/*"])
        #expect(request.headers == ["user-agent": "Mine/2", "Accept": "*/*"])
    }

    @Test func anEndpointGivesItsURLAndMethod() throws {
        let request = APIRequest(EndpointTests.API.createUser).path("admins").query("notify", "yes")
        let urlRequest = try request.makeURLRequest()
        #expect(urlRequest.httpMethod == "POST")
        #expect(urlRequest.url?.absoluteString == "https://api.example.com/v2/users/admins?notify=yes")
    }

    @Test func aURLThatCannotBeMadeIsAnInvalidRequestAndTheBaseMeanwhile() throws {
        let request = APIRequest(base).path("..", "etc")
        #expect(request.url == base)
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("\"..\""))
    }

    @Test func headerValuesWithLineBreaksAreRejected() throws {
        let request = APIRequest(base).header(.authorization(bearerToken: "t\r\nX-Admin: 1"))
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        guard case .invalidRequest(let reason) = error.fetchKind else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(reason.contains("Authorization"))
    }

    @Test func aJSONBodyIsEncodedWithISO8601DatesAndTypedAsJSON() throws {
        let event = Event(name: "launch", at: Date(timeIntervalSince1970: 1_796_028_132))
        let urlRequest = try APIRequest(base).method(.post).jsonBody(event).makeURLRequest()
        let body = try #require(urlRequest.httpBody)
        #expect(String(decoding: body, as: UTF8.self) == #"{"at":"2026-11-30T08:42:12Z","name":"launch"}"#)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func aJSONBodyUsesTheGivenEncoder() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let event = Event(name: "x", at: Date(timeIntervalSince1970: 10))
        let body = try #require(APIRequest(base).jsonBody(event, encoder: encoder).body)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        #expect(try decoder.decode(Event.self, from: body) == event)
    }

    @Test func theRequestsOwnContentTypeWinsWhicheverComesFirst() throws {
        let before = APIRequest(base).header("content-type", "application/vnd.api+json").jsonBody(["a": 1])
        let after = APIRequest(base).jsonBody(["a": 1]).header("Content-Type", "application/vnd.api+json")
        for request in [before, after] {
            let urlRequest = try request.makeURLRequest()
            #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
            #expect(request.headers.count == 1)
        }
    }

    @Test func aJSONEncodingFailureIsThrownByMakeURLRequestAsEncoding() throws {
        let request = APIRequest(base).method(.post).jsonBody(["value": Double.nan])
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        guard case .encoding(let underlying, _) = error.fetchKind else {
            Issue.record("expected encoding, got \(error)")
            return
        }
        #expect(underlying is EncodingError)
        #expect(error.description.contains("could not encode the request body"))
    }

    @Test func aJSONEncodingFailureReachesThePerformersCompletion() throws {
        let mock = MockPerformer { _ in .json("{}") }
        let result = Captured<Result<Data, any Error>>()
        let request = APIRequest(base).jsonBody(["value": Double.infinity]).header("X-Later", "1")
        mock.perform(request, completion: result.capture)
        guard case .encoding = try fetchError(result.value).fetchKind else {
            Issue.record("expected FetchError.encoding, got \(String(describing: result.value))")
            return
        }
    }

    @Test func theFirstFailingModifierIsTheOneThrown() throws {
        let request = APIRequest(base)
            .jsonBody(["a": Double.nan])
            .multipartBody(MultipartBody().file("f", contentsOf: URL(fileURLWithPath: "/nonexistent/file")))
        let error = try #require(throws: FetchError.self) { try request.makeURLRequest() }
        guard case .encoding(let underlying, _) = error.fetchKind else {
            Issue.record("expected encoding, got \(error)")
            return
        }
        #expect(underlying is EncodingError)
    }

    @Test func aFormBodyIsURLEncodedInOrderAndTyped() throws {
        let urlRequest = try APIRequest(base)
            .method(.post)
            .formBody(["name": "Zoë O'Neil", "q": "a+b&c=d", "name": "second"])
            .makeURLRequest()
        let body = try #require(urlRequest.httpBody)
        #expect(String(decoding: body, as: UTF8.self) == "name=Zo%C3%AB+O%27Neil&q=a%2Bb%26c%3Dd&name=second")
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func aBodyOfBytesCarriesItsContentType() throws {
        let data = Data([0, 1, 2])
        let typed = try APIRequest(base).body(data, contentType: "application/octet-stream").makeURLRequest()
        #expect(typed.httpBody == data)
        #expect(typed.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        let untyped = try APIRequest(base).body(data, contentType: nil).makeURLRequest()
        #expect(untyped.value(forHTTPHeaderField: "Content-Type") == nil)
    }
}
