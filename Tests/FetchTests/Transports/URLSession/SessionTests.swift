import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Session` end to end against the loopback test server (`Tests/FetchTests/Support/Server/test_server.py`).
@Suite struct SessionTests {
    let server: TestServer
    let callbackQueue = OperationQueue()

    init() throws {
        server = try TestServer.running()
    }

    @Test(arguments: SessionTransport.allCases)
    func getsAndDecodesAModel(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let results = Captured<Result<User, any Error>>()
        session.perform(TestRequest(server.url("/users/1")), completion: results.capture)
        let user = try await results.first().get()
        #expect(user.id == 1)
        #expect(user.name == "Ada Lovelace")
        #expect(abs(user.createdAt.timeIntervalSince1970 - 1_796_028_132.345) < 0.0005)
    }

    @Test(arguments: SessionTransport.allCases)
    func getsAnArrayOfModels(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let users: [User] = try await session.perform(TestRequest(server.url("/users")))
        #expect(users.map(\.id) == [1, 2])
    }

    @Test(arguments: SessionTransport.allCases)
    func postsTheBodyAndHeadersToTheServer(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let body = Data(#"{"name":"Ada","tags":["é","☕︎"]}"#.utf8)
        let request = TestRequest(
            server.url("/echo?page=2"),
            method: .post,
            headers: ["Content-Type": "application/json", "X-Request-ID": "abc-123"],
            body: body
        )
        let echo: Echo = try await session.perform(request)
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo")
        #expect(echo.query == ["page": ["2"]])
        #expect(echo.headers["content-type"] == "application/json")
        #expect(echo.headers["x-request-id"] == "abc-123")
        #expect(echo.headers["content-length"] == String(body.count))
        #expect(Data(echo.body.utf8) == body)
    }

    @Test(arguments: SessionTransport.allCases, [HTTPMethod.put, .patch, .delete, .options, "PURGE"])
    func sendsEveryMethodAsItIsNamed(on transport: SessionTransport, method: HTTPMethod) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let echo: Echo = try await session.perform(TestRequest(server.url("/echo"), method: method))
        #expect(echo.method == method.rawValue)
    }

    @Test(arguments: SessionTransport.allCases)
    func readsA404ErrorBodyThroughTheErrorParser(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        await #expect(throws: APIError(error: true, reason: "no user with id 7")) {
            let _: User = try await session.perform(
                TestRequest(server.url("/users/7")), errorParser: DecodableErrorParser<APIError>())
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func a500WithoutAnErrorParserIsUnacceptableWithTheResponse(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let results = Captured<Result<User, any Error>>()
        session.perform(TestRequest(server.url("/status/500")), completion: results.capture)
        let error = try fetchError(try await results.first())
        guard case .unacceptableStatus(let response) = error.fetchKind else {
            Issue.record("expected .unacceptableStatus, got \(error)")
            return
        }
        #expect(response.status == 500)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.url == server.url("/status/500"))
        #expect(
            error.description
                == #"GET \#(server.url("/status/500").absoluteString) → 500 Internal Server Error: {"error": true, "reason": "status 500 as asked"}"#
        )
    }

    @Test(arguments: SessionTransport.allCases)
    func a204IsAnEmptyResponse(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let empty: EmptyResponse = try await session.perform(TestRequest(server.url("/status/204"), method: .delete))
        #expect(empty == EmptyResponse())
        let raw: Response = try await session.perform(TestRequest(server.url("/status/204")))
        #expect(raw.status == 204)
        #expect(raw.data?.isEmpty ?? true)
    }

    @Test(arguments: SessionTransport.allCases)
    func headGetsHeadersWithoutABody(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let response: Response = try await session.perform(TestRequest(server.url("/users/1"), method: .head))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(Int(response.headers["content-length"] ?? "") ?? 0 > 0)
        #expect(response.data?.isEmpty ?? true)
    }

    @Test(arguments: SessionTransport.allCases)
    func decodesTextInTheCharsetTheServerNames(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let text: String = try await session.perform(TestRequest(server.url("/text?charset=iso-8859-1&text=caf%C3%A9")))
        #expect(text == "café")
    }

    @Test(arguments: SessionTransport.allCases)
    func aRequestThatOutlivesItsTimeoutFailsWithTimedOut(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let request = TestRequest(server.url("/delay/5000"), timeout: 1)
        let results = Captured<Result<Data, any Error>>()
        session.perform(request, completion: results.capture)
        guard case .timedOut = try fetchError(try await results.first()).fetchKind else {
            Issue.record("expected .timedOut, got \(results.values)")
            return
        }
    }

    /// swift-corelibs-foundation truncates timeouts to whole seconds: 0.5 s would time out at once.
    @Test(arguments: SessionTransport.allCases, [0.5, 0.25])
    func aFractionalTimeoutWaitsAsLongAsItSays(on transport: SessionTransport, timeout: TimeInterval) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let started = ContinuousClock.now
        let results = Captured<Result<Data, any Error>>()
        session.perform(TestRequest(server.url("/delay/5000"), timeout: timeout), completion: results.capture)
        guard case .timedOut = try fetchError(try await results.first()).fetchKind else {
            Issue.record("expected .timedOut, got \(results.values)")
            return
        }
        #expect(ContinuousClock.now - started >= .seconds(timeout * 0.95))
    }

    @Test(arguments: SessionTransport.allCases)
    func anAnswerWithinAFractionalTimeoutArrives(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let answer: Data = try await session.perform(TestRequest(server.url("/delay/100"), timeout: 3.5))
        #expect(String(decoding: answer, as: UTF8.self) == #"{"delayed": 100}"#)
    }

    /// URLSession only: a curl session has no `URLSessionConfiguration` (its idle timeout is 60 s).
    @Test func theSessionConfigurationsTimeoutAppliesWhenTheRequestSetsNone() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0.5
        let session = makeSession(configuration: configuration)
        await #expect {
            let _: Data = try await session.perform(TestRequest(server.url("/delay/5000")))
        } throws: { error in
            (error as? FetchError)?.code == .timedOut
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func aRefusedConnectionIsATransportErrorNamingTheURL(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        struct Port: Decodable, Parsable { let port: Int }
        let closed: Port = try await session.perform(TestRequest(server.url("/closed-port")))
        let url = try #require(URL(string: "http://127.0.0.1:\(closed.port)/users/1"))
        let results = Captured<Result<User, any Error>>()
        session.perform(TestRequest(url), completion: results.capture)
        let error = try fetchError(try await results.first())
        guard case .transport(let urlError, _) = error.fetchKind else {
            Issue.record("expected .transport, got \(error)")
            return
        }
        #expect(urlError.code == .cannotConnectToHost)
        #expect(error.description.contains(url.absoluteString))
    }

    @Test(arguments: SessionTransport.allCases)
    func anInvalidRequestFailsWithoutReachingTheServer(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let results = Captured<Result<Data, any Error>>()
        session.perform(
            TestRequest(server.url("/echo"), headers: ["X-Evil": "a\r\nHost: evil"]), completion: results.capture)
        guard case .invalidRequest = try fetchError(try await results.first()).fetchKind else {
            Issue.record("expected .invalidRequest, got \(results.values)")
            return
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func cancellingBeforeTheAnswerCompletesOnceWithCancelled(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let results = Captured<Result<Data, any Error>>()
        let call = session.perform(TestRequest(server.url("/delay/2000")), completion: results.capture)
        call.cancel()
        call.cancel()
        guard case .cancelled = try fetchError(try await results.first()).fetchKind else {
            Issue.record("expected .cancelled, got \(results.values)")
            return
        }
        try await drain(callbackQueue)
        #expect(results.values.count == 1)
    }

    @Test(arguments: SessionTransport.allCases)
    func cancelAllTasksCancelsEveryCallInFlight(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let results = Captured<Result<Data, any Error>>()
        for _ in 0..<5 {
            session.perform(TestRequest(server.url("/delay/3000")), completion: results.capture)
        }
        session.cancelAllTasks()
        let values = try await results.wait(for: 5)
        for value in values {
            guard case .cancelled = try fetchError(value).fetchKind else {
                Issue.record("expected .cancelled, got \(value)")
                return
            }
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func aPipelineBuiltWithMiddlewaresCancelsEveryCallOfItsSession(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let api = session.with(.observe { _ in })
        let results = Captured<Result<Data, any Error>>()
        for _ in 0..<3 {
            api.perform(TestRequest(server.url("/delay/3000")), completion: results.capture)
        }
        session.perform(TestRequest(server.url("/delay/3000")), completion: results.capture)
        api.cancelAllTasks()
        let values = try await results.wait(for: 4, timeout: 2.5)
        #expect(values.count == 4)
        for value in values {
            #expect(String(describing: value).contains("cancel"), "expected a cancellation, got \(value)")
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func completionsArriveOnTheCallbackQueue(on transport: SessionTransport) async throws {
        let queue = OperationQueue()
        queue.name = "completions"
        let session = try makeSession(transport, callbackQueue: queue)
        let results = Captured<String?>()
        session.perform(TestRequest(server.url("/users/1"))) { (_: Result<User, any Error>) in
            results.capture(OperationQueue.current?.name)
        }
        session.perform(TestRequest(server.url("/users/1"), headers: ["Bad Name": "1"])) {
            (_: Result<User, any Error>) in
            results.capture(OperationQueue.current?.name)
        }
        #expect(try await results.wait(for: 2) == ["completions", "completions"])
    }

    /// A model that records where it was parsed.
    struct WhereParsed: Parsable {
        let queueName: String?
        static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Self, any Error> {
            .success(WhereParsed(queueName: OperationQueue.current?.name))
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func parsingRunsOffTheCallbackQueue(on transport: SessionTransport) async throws {
        let queue = OperationQueue()
        queue.name = "completions"
        let session = try makeSession(transport, callbackQueue: queue)
        let results = Captured<Result<WhereParsed, any Error>>()
        session.perform(TestRequest(server.url("/users/1")), completion: results.capture)
        let parsed = try await results.first().get()
        #expect(parsed.queueName != "completions")
    }

    @Test(arguments: SessionTransport.allCases)
    func asyncFormsReturnWithoutTheCallbackQueueRunning(on transport: SessionTransport) async throws {
        let stopped = OperationQueue()
        stopped.isSuspended = true
        let session = try makeSession(transport, callbackQueue: stopped)
        let user: User = try await session.perform(TestRequest(server.url("/users/2")))
        #expect(user.name == "Grace Hopper")
        #expect(stopped.operationCount == 0)
    }

    @Test(arguments: SessionTransport.allCases)
    func asyncFormsThrowTheErrorParsersError(on transport: SessionTransport) async throws {
        let session = transport == .urlSession ? Session() : try makeSession(transport)
        await #expect(throws: APIError(error: true, reason: "no user with id 9")) {
            let _: User = try await session.perform(
                TestRequest(server.url("/users/9")), errorParser: DecodableErrorParser<APIError>())
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func cancellingTheTaskCancelsTheRequest(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let task = Task {
            let _: Data = try await session.perform(TestRequest(server.url("/delay/5000")))
        }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let result = await task.result
        guard case .cancelled = try fetchError(result).fetchKind else {
            Issue.record("expected .cancelled, got \(result)")
            return
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func aTaskCancelledBeforeItStartsNeverSendsTheRequest(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let spy = SpyPerformer(forwardingTo: session)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let _: Data = try await spy.perform(TestRequest(server.url("/delay/5000")))
        }
        let result = await task.result
        guard case .cancelled = try fetchError(result).fetchKind else {
            Issue.record("expected .cancelled, got \(result)")
            return
        }
        #expect(spy.calls.isEmpty, "a call cancelled before it starts reaches no middleware and no transport")
    }

    @Test(arguments: SessionTransport.allCases)
    func aTaskCancelledBeforeItStartsNeverSendsTheSessionsRequest(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let path = "/delay/4321"
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let _: Data = try await session.perform(TestRequest(server.url(path)))
        }
        let result = await task.result
        guard case .cancelled = try fetchError(result).fetchKind else {
            Issue.record("expected .cancelled, got \(result)")
            return
        }
        // Had it been sent, it would have reached the server by the time a second request has.
        _ = try await server.hits(path)
        #expect(try await server.hits(path) == 0)
    }

    @Test(arguments: SessionTransport.allCases)
    func everyAsyncCallEndsOnceWhenTaskCancellationRacesTheAnswer(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let calls = 200
        // A continuation resumed twice traps, and one never resumed leaves its task waiting: both fail this test.
        let ended = Captured<Result<User, any Error>>()
        for _ in 0..<calls {
            let task = Task {
                do {
                    let user: User = try await session.perform(TestRequest(server.url("/users/1")))
                    ended.capture(.success(user))
                } catch {
                    ended.capture(.failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: .microseconds(Int.random(in: 0...3_000)))
                task.cancel()
            }
        }
        let results = try await ended.wait(for: calls, timeout: 60)
        #expect(results.count == calls)
        for result in results {
            switch result {
            case .success(let user):
                #expect(user.name == "Ada Lovelace")
            case .failure:
                guard case .cancelled = try fetchError(result).fetchKind else {
                    Issue.record("expected the user or .cancelled, got \(result)")
                    continue
                }
            }
        }
    }

    @Test(arguments: SessionTransport.allCases)
    func everyCompletionIsCalledExactlyOnceWhenCancelRacesCompletion(on transport: SessionTransport) async throws {
        let session = try makeSession(transport, callbackQueue: callbackQueue)
        let calls = 300
        let counts = Locked([Int](repeating: 0, count: calls))
        let finished = Captured<Int>()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<calls {
                group.addTask {
                    let call = session.perform(TestRequest(server.url("/users/1"))) { (_: Result<User, any Error>) in
                        counts.withLock { $0[index] += 1 }
                        finished.capture(index)
                    }
                    // Cancel at every point of the call's life: before, during and after the answer.
                    try? await Task.sleep(for: .microseconds(Int.random(in: 0...3_000)))
                    call.cancel()
                }
            }
        }
        _ = try await finished.wait(for: calls, timeout: 60)
        try await drain(callbackQueue)
        #expect(counts.withLock { $0 }.allSatisfy { $0 == 1 })
    }

    /// Waits until everything already queued on `queue` has run.
    private func drain(_ queue: OperationQueue) async throws {
        let drained = Captured<Bool>()
        queue.addBarrierBlock { drained.capture(true) }
        _ = try await drained.first()
    }
}
