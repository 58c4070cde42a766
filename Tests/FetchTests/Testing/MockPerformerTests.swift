import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MockPerformerTests {
    let getUser = TestRequest("https://api.example.com/users/1")

    @Test func completesBeforePerformReturns() throws {
        let mock = MockPerformer { _ in
            MockResponse(
                status: 200, data: Data(#"{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}"#.utf8))
        }
        let user = Captured<Result<User, any Error>>()
        mock.perform(getUser, completion: user.capture)
        #expect(try user.value?.get().name == "Ada")
    }

    @Test func errorBodiesGoThroughTheErrorParserAsWithSession() throws {
        let mock = MockPerformer { _ in .json(#"{"error": true, "reason": "no such user"}"#, status: 404) }
        let result = Locked<Result<User, any Error>?>(nil)
        mock.perform(getUser, errorParser: DecodableErrorParser<APIError>()) { value in result.withLock { $0 = value } }
        #expect(throws: APIError(error: true, reason: "no such user")) { try result.withLock { $0 }?.get() }
    }

    @Test func transportErrorsArriveAsSessionWouldDeliverThem() throws {
        let mock = MockPerformer { _ in throw URLError(.timedOut) }
        let result = Locked<Result<Data, any Error>?>(nil)
        mock.perform(getUser) { value in result.withLock { $0 = value } }
        guard case .timedOut = try fetchError(result.withLock { $0 }).fetchKind else {
            Issue.record("expected .timedOut")
            return
        }
    }

    @Test func routesAnswerByMethodAndPath() async throws {
        let mock = MockPerformer(routes: [
            .get("/users/1", .json(#"{"id": 1, "name": "Ada", "createdAt": "2026-11-30T08:42:12Z"}"#)),
            .post("/users", MockResponse(status: 201)),
            .init(.delete, "/users/1", error: URLError(.notConnectedToInternet)),
        ])
        let user: User = try await mock.perform(getUser)
        #expect(user.name == "Ada")
        let _: EmptyResponse = try await mock.perform(TestRequest("https://api.example.com/users", method: .post))
        await #expect(throws: FetchError.self) {
            let _: EmptyResponse = try await mock.perform(
                TestRequest("https://api.example.com/users/1", method: .delete))
        }
    }

    @Test func onAnswersAnyMethodAndOnlyThatMethod() async throws {
        let mock = MockPerformer(routes: [
            .on(.put, "/users/1", MockResponse(status: 200, data: Data(#"{"id": 1, "name": "Ada"}"#.utf8))),
            .on(.delete, "/users/1", MockResponse(status: 204)),
            .on(HTTPMethod(rawValue: "PURGE"), "/cache", MockResponse(status: 202)),
        ])
        let put: Response = try await mock.perform(TestRequest("https://api.example.com/users/1", method: .put))
        #expect(put.status == 200)
        let deleted: Response = try await mock.perform(
            TestRequest("https://api.example.com/users/1", method: .delete))
        #expect(deleted.status == 204)
        let purged: Response = try await mock.perform(
            TestRequest("https://api.example.com/cache", method: HTTPMethod(rawValue: "PURGE")))
        #expect(purged.status == 202)
        await #expect(throws: (any Error).self) {
            let _: Response = try await mock.perform(TestRequest("https://api.example.com/users/1", method: .patch))
        }
    }

    @Test func aRequestNoRouteMatchesFailsNamingItAndTheRoutes() async throws {
        let mock = MockPerformer(routes: [.get("/users/1", MockResponse())])
        let error = try await #require(throws: MockPerformer.NoAnswer.self) {
            let _: Data = try await mock.perform(TestRequest("https://api.example.com/users/2"))
        }
        #expect(
            error.description
                == "MockPerformer has no route for GET https://api.example.com/users/2 (path /users/2); its routes: GET /users/1"
        )
    }

    @Test func aRouteWithATrailingSlashAnswersThatPathOnly() async throws {
        let mock = MockPerformer(routes: [.get("/alice/", .text("calendar home"))])
        let text: String = try await mock.perform(TestRequest("https://dav.example.com/alice/"))
        #expect(text == "calendar home")
        await #expect(throws: MockPerformer.NoAnswer.self) {
            let _: String = try await mock.perform(TestRequest("https://dav.example.com/alice"))
        }
    }

    @Test func aRouteWithoutATrailingSlashDoesNotAnswerThePathWithOne() async throws {
        let mock = MockPerformer(routes: [.get("/alice", .text("alice"))])
        let text: String = try await mock.perform(TestRequest("https://dav.example.com/alice"))
        #expect(text == "alice")
        let error = try await #require(throws: MockPerformer.NoAnswer.self) {
            let _: String = try await mock.perform(TestRequest("https://dav.example.com/alice/"))
        }
        #expect(error.description.contains("(path /alice/)"))
    }

    @Test func theRootRouteAnswersTheRootAndAnEmptyPath() async throws {
        let mock = MockPerformer(routes: [.get("/", .text("root"))])
        let slash: String = try await mock.perform(TestRequest("https://api.example.com/"))
        let empty: String = try await mock.perform(TestRequest("https://api.example.com"))
        #expect([slash, empty] == ["root", "root"])
    }

    @Test func aHandlerSeesTheRequest() async throws {
        let mock = MockPerformer { request in
            .text("\(request.method) \(request.url.path)")
        }
        let text: String = try await mock.perform(TestRequest("https://api.example.com/a/b", method: .put))
        #expect(text == "PUT /a/b")
    }

    @Test func invalidRequestsFailAsWithSessionWithoutAskingTheHandler() async throws {
        let asked = Locked(false)
        let mock = MockPerformer { _ in
            asked.withLock { $0 = true }
            return MockResponse()
        }
        await #expect(throws: FetchError.self) {
            let _: Data = try await mock.perform(TestRequest("https://api.example.com/", headers: ["X": "a\r\nb"]))
        }
        #expect(asked.withLock { $0 } == false)
    }

    @Test func cancellingAFinishedCallDoesNothing() {
        let count = Locked(0)
        let call = MockPerformer { _ in MockResponse() }.perform(getUser) { (_: Result<Data, any Error>) in
            count.withLock { $0 += 1 }
        }
        call.cancel()
        #expect(count.withLock { $0 } == 1)
    }
}
