import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A refresh reported to every call it replays, naming the call whose rejection started it.
@Suite struct AuthenticatingMiddlewareEventTests {
    /// A request told apart by its path: `/calls/<n>`.
    static func request(_ number: Int) -> TestRequest {
        TestRequest("https://api.example.com/calls/\(number)")
    }

    @Test func aRefreshSharedByConcurrentCallsIsReportedOnceToEachNamingTheOneInitiator() throws {
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let authenticate: AuthenticatingMiddleware = .authenticate(with: authenticator)
        let observed = (0..<4).map { _ in Captured<FetchEvent>() }
        let results = Captured<Result<String, any Error>>()
        for (number, events) in observed.enumerated() {
            spy.with(.observe(events.capture), authenticate).perform(Self.request(number), completion: results.capture)
        }

        // The third call's rejection arrives first: its call starts the refresh the others wait for.
        spy.calls[2].complete(with: MockResponse(status: 401))
        for index in [0, 1, 3] {
            spy.calls[index].complete(with: MockResponse(status: 401))
        }
        #expect(authenticator.refreshes == 1)
        authenticator.finishRefresh(token: "new")
        spy.complete(with: .text("welcome"))

        #expect(try results.values.map { try $0.get() } == Array(repeating: "welcome", count: 4))
        for (number, events) in observed.enumerated() {
            #expect(
                events.values.map(\.name.description) == [
                    "started", "attemptStarted", "attemptFinished", "credentialRefreshed", "attemptStarted",
                    "attemptFinished", "finished",
                ])
            let refreshed = try #require(events.values.first { $0.name == .credentialRefreshed })
            #expect(refreshed.request.url == Self.request(number).url)
            #expect(refreshed.initiator?.url == Self.request(2).url)
        }
    }

    @Test func aCallRejectedAfterTheRefreshFinishedHearsItToo() throws {
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let authenticate: AuthenticatingMiddleware = .authenticate(with: authenticator)
        let late = Captured<FetchEvent>()
        spy.with(authenticate).perform(Self.request(0)) { (_: Result<Data, any Error>) in }
        spy.with(.observe(late.capture), authenticate).perform(Self.request(1)) { (_: Result<Data, any Error>) in }

        spy.calls[0].complete(with: MockResponse(status: 401))
        authenticator.finishRefresh(token: "new")
        spy.calls[1].complete(with: MockResponse(status: 401))

        #expect(authenticator.refreshes == 1)
        let refreshed = late.values.filter { $0.name == .credentialRefreshed }
        #expect(refreshed.count == 1)
        #expect(refreshed.first?.initiator?.url == Self.request(0).url)
    }

    @Test func aFailedRefreshReportsOnlyTheFailure() throws {
        struct TokenServiceDown: Error {}
        let spy = SpyPerformer()
        let authenticator = ManualAuthenticator()
        let events = Captured<FetchEvent>()
        spy.with(.observe(events.capture), .authenticate(with: authenticator))
            .perform(Self.request(0)) { (_: Result<Data, any Error>) in }

        spy.complete(with: MockResponse(status: 401))
        authenticator.finishRefresh(error: TokenServiceDown())

        #expect(events.values.map(\.name.description) == ["started", "attemptStarted", "attemptFinished", "failed"])
        guard case .credentialRefreshFailed = events.values.last?.error?.fetchKind else {
            Issue.record(
                "expected the failure to carry credentialRefreshFailed, got \(String(describing: events.values.last))")
            return
        }
    }

    @Test func overTheLoopbackServerTheReplayFollowsTheRefreshEvent() async throws {
        let server = try TestServer.running()
        let session = makeSession()
        let realm = UUID().uuidString
        let tokenURL = server.url("/auth/\(realm)/token")
        let tokens = BearerAuthenticator(token: "expired") {
            let answer: AuthenticatingSessionTests.Token = try await session.perform(
                TestRequest(tokenURL, method: .post))
            return answer.token
        }
        let events = Captured<FetchEvent>()
        let api = session.with(.observe(events.capture), .authenticate(with: tokens))
        let request = TestRequest(server.url("/auth/\(realm)/protected"))

        let response: Response = try await api.perform(request)

        #expect(response.status == 200)
        try #require(
            events.values.map(\.name.description) == [
                "started", "attemptStarted", "attemptFinished", "credentialRefreshed", "attemptStarted",
                "attemptFinished", "finished",
            ])
        #expect(events.values[2].status == 401)
        #expect(events.values[3].initiator?.url == request.url)
    }
}
