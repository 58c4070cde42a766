// The code samples of the DocC article "Testing your API client"
// (Sources/Fetch/Fetch.docc/TestingYourAPIClient.md), compiled and run here so that they cannot rot; DocSampleTests
// checks that each DOC-BEGIN…DOC-END region matches a block of the article.

import Fetch
import FetchTesting
import Foundation
import Testing

struct TestingYourAPIClientArticle {
    // DOC-BEGIN
    struct User: Decodable, Parsable {
        let id: Int
        let name: String
    }

    struct GetUser: Request {
        let baseURL: URL
        let id: Int

        var url: URL { baseURL.appending(path: "users/\(id)") }
    }

    struct UserAPI {
        let baseURL: URL
        let performer: any RequestPerforming

        func user(id: Int, completion: @escaping @Sendable (Result<User, any Error>) -> Void) {
            performer.perform(GetUser(baseURL: baseURL, id: id), completion: completion)
        }
    }
    // DOC-END

    // DOC-BEGIN
    @Test func readsTheUser() throws {
        let mock = MockPerformer { _ in .json(#"{"id": 7, "name": "Ada"}"#) }
        let user = Captured<Result<User, any Error>>()
        UserAPI(baseURL: baseURL, performer: mock).user(id: 7, completion: user.capture)
        #expect(try user.value?.get().name == "Ada")
    }
    // DOC-END

    // DOC-BEGIN
    @Test func reportsAMissingUser() throws {
        let mock = MockPerformer(routes: [
            .get("/users/7", .json(#"{"id": 7, "name": "Ada"}"#)),
            .get("/users/8", .json(#"{"reason": "no such user"}"#, status: 404)),
        ])
        let user = Captured<Result<User, any Error>>()
        UserAPI(baseURL: baseURL, performer: mock).user(id: 8, completion: user.capture)
        #expect(throws: FetchError.self) { try user.value?.get() }
    }
    // DOC-END

    // DOC-BEGIN
    @Test func asksForTheUserByIDAndReadsTheAnswer() throws {
        let spy = SpyPerformer()
        let user = Captured<Result<User, any Error>>()
        UserAPI(baseURL: baseURL, performer: spy).user(id: 7, completion: user.capture)
        #expect(spy.requests.last?.url.path == "/users/7")
        #expect(user.value == nil)

        spy.complete(with: .json(#"{"id": 7, "name": "Ada"}"#))
        #expect(try user.value?.get().name == "Ada")
    }
    // DOC-END

    // DOC-BEGIN
    @Test func retriesAfterA503WithBackoff() throws {
        let spy = SpyPerformer()
        let scheduler = TestScheduler()
        let user = Captured<Result<User, any Error>>()
        let policy = RetryPolicy(backoff: Backoff(jitter: 0))
        let api = UserAPI(baseURL: baseURL, performer: spy.with(.retry(policy, scheduler: scheduler)))
        api.user(id: 1, completion: user.capture)

        spy.complete(with: MockResponse(status: 503))
        spy.complete(with: .json(#"{"id": 1, "name": "Ada"}"#))
        #expect(try user.value?.get().name == "Ada")
        #expect(scheduler.delays == [0.5])
    }
    // DOC-END

    // DOC-BEGIN
    func fetchesTheUser(from session: Session) async throws {
        let user = Captured<Result<User, any Error>>()
        UserAPI(baseURL: baseURL, performer: session).user(id: 1, completion: user.capture)
        let result = try await user.first(timeout: 5)
        #expect(try result.get().id == 1)
    }
    // DOC-END

    // DOC-BEGIN
    @Test func readsTheRecordedUser() throws {
        let fixture = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID()).har")
        let recorded = try MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }.with(.record(to: fixture))
        recorded.perform(GetUser(baseURL: baseURL, id: 1)) { (_: Result<User, any Error>) in }

        let user = Captured<Result<User, any Error>>()
        let api = UserAPI(baseURL: baseURL, performer: try MockPerformer(replaying: fixture))
        api.user(id: 1, completion: user.capture)
        #expect(try user.value?.get().name == "Ada")
        try FileManager.default.removeItem(at: fixture)
    }
    // DOC-END
}
