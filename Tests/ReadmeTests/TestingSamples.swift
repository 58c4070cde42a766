// README-BEGIN
import Fetch
import FetchTesting
import Foundation
import Testing

struct UserAPI {
    let baseURL: URL
    let performer: any RequestPerforming

    func user(id: Int, completion: @escaping @Sendable (Result<User, any Error>) -> Void) {
        performer.perform(GetUser(baseURL: baseURL, id: id), completion: completion)
    }
}

@Test func asksForTheUserByID() {
    let spy = SpyPerformer()
    UserAPI(baseURL: baseURL, performer: spy).user(id: 7) { _ in }
    #expect(spy.requests.last?.url.path == "/users/7")
}

@Test func readsTheUser() throws {
    let mock = MockPerformer { _ in .json(#"{"id": 7, "name": "Ada"}"#) }
    let user = Captured<Result<User, any Error>>()
    UserAPI(baseURL: baseURL, performer: mock).user(id: 7, completion: user.capture)
    #expect(try user.value?.get().name == "Ada")
}
// README-END

@Test func showsTheServersReason() throws {
    let mock = MockPerformer(routes: [
        .get("/users/7", .json(#"{"reason": "no such user"}"#, status: 404))
    ])
    let user = Captured<Result<User, any Error>>()
    mock.perform(
        GetUser(baseURL: baseURL, id: 7), errorParser: DecodableErrorParser<APIError>(), completion: user.capture)
    #expect(throws: APIError.self) { try user.value?.get() }
}
