import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every error a caller receives names the request it made, in one line, whatever failed and wherever.
@Suite struct FetchErrorNamingTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    private func description(of result: Result<Data, any Error>?) throws -> String {
        try fetchError(result).description
    }

    @Test func aTimeoutNamesTheRequestAndTheSeconds() async throws {
        let url = server.url("/delay/3000")
        let result = Captured<Result<Data, any Error>>()
        makeSession().perform(TestRequest(url, timeout: 0.25), completion: result.capture)
        let text = try description(of: try await result.first())
        #expect(text == "GET \(url.absoluteString) timed out: no answer within 0.25 s")
    }

    @Test func aCancellationNamesTheRequest() async throws {
        let url = server.url("/delay/3000")
        let result = Captured<Result<Data, any Error>>()
        makeSession().with(.retry()).perform(TestRequest(url, method: .delete), completion: result.capture).cancel()
        let text = try description(of: try await result.first())
        #expect(text == "DELETE \(url.absoluteString) was cancelled before it finished")
    }

    @Test func aRefusedConnectionNamesTheMethodAndURL() async throws {
        struct Port: Decodable, Parsable { let port: Int }
        let closed: Port = try await makeSession().perform(TestRequest(server.url("/closed-port")))
        let url = try #require(URL(string: "http://127.0.0.1:\(closed.port)/orders"))
        let result = Captured<Result<Data, any Error>>()
        makeSession().perform(TestRequest(url, method: .post), completion: result.capture)
        let text = try description(of: try await result.first())
        #expect(text.hasPrefix("POST \(url.absoluteString): could not reach the server: "))
    }

    @Test func exhaustedRetriesNameTheRequestTheCountAndTheLastStatus() throws {
        let request = TestRequest("https://api.example.com/users/1")
        let result = Captured<Result<Data, any Error>>()
        MockPerformer { _ in MockResponse(status: 503) }.with(.retry(scheduler: TestScheduler())).perform(
            request, completion: result.capture)
        let text = try description(of: result.value)
        #expect(
            text
                == "GET https://api.example.com/users/1: gave up after 3 attempts; the last one failed: GET"
                + " https://api.example.com/users/1 → 503 Service Unavailable: (empty body)")
    }

    @Test func exhaustedRetriesOfTimeoutsNameTheRequestInsideToo() throws {
        let request = TestRequest("https://api.example.com/slow")
        let result = Captured<Result<Data, any Error>>()
        MockPerformer { _ in throw URLError(.timedOut) }.with(.retry(scheduler: TestScheduler()))
            .perform(request, completion: result.capture)
        let text = try description(of: result.value)
        #expect(
            text
                == "GET https://api.example.com/slow: gave up after 3 attempts; the last one failed: GET"
                + " https://api.example.com/slow timed out: no answer within its timeout")
    }

    @Test func anEncodingFailureNamesTheRequest() throws {
        struct Bad: Encodable { let value = Double.nan }
        let url = try #require(URL(string: "https://api.example.com/items"))
        let result = Captured<Result<Data, any Error>>()
        MockPerformer { _ in MockResponse(status: 200) }.perform(
            APIRequest(url).method(.put).jsonBody(Bad()), completion: result.capture)
        #expect(try description(of: result.value).hasPrefix("PUT https://api.example.com/items: could not encode"))
    }

    /// A timeout that was not the wait for an answer (a WebSocket send, a ping) says what did not happen, also once
    /// the pipeline names the request.
    @Test func aTimeoutOfSomethingElseThanAnAnswerSaysWhat() {
        let request = TestRequest("wss://api.example.com/feed")
        let error = FetchError.timedOut(seconds: 2).leaving("the message was not sent").naming(request)
        #expect(error.description == "GET wss://api.example.com/feed timed out: the message was not sent within 2 s")
        #expect(error.code == .timedOut)
    }
}

/// The `async` forms read errors exactly as the callback forms do.
@Suite struct AsyncErrorReadingTests {
    @Test func exhaustedRetriesReadTheLastBodyWithTheErrorParserInTheAsyncFormToo() async throws {
        let mock = MockPerformer { _ in .json(#"{"error": true, "reason": "busy"}"#, status: 503) }
        let performer = mock.with(.retry(scheduler: TestScheduler()))
        do {
            let _: Data = try await performer.perform(
                TestRequest("https://api.example.com/x"), errorParser: DecodableErrorParser<APIError>())
            Issue.record("expected an error")
        } catch let error as FetchError where error.code == .attemptsExhausted {
            guard case .attemptsExhausted(let attempts, let last as APIError, _) = error.kind else {
                return
            }
            #expect(attempts == 3)
            #expect(last.reason == "busy")
        }
    }

    @Test func aCancelledTaskNamesItsRequest() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let _: Data = try await SpyPerformer().perform(TestRequest("https://api.example.com/never"))
        }
        let error = try fetchError(await task.result)
        #expect(error.description == "GET https://api.example.com/never was cancelled before it finished")
    }
}
