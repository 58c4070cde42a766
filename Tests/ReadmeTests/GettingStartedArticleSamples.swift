// The code samples of the DocC article "Getting started" (Sources/Fetch/Fetch.docc/GettingStarted.md), compiled here
// so that they cannot rot; DocSampleTests checks that each DOC-BEGIN…DOC-END region matches a block of the article.

import Fetch
import Foundation

enum GettingStartedArticle {
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
    // DOC-END

    static func sendAsync() async throws {
        // DOC-BEGIN
        let session = Session()
        let user: User = try await session.perform(GetUser(baseURL: baseURL, id: 1))
        print("Hello, \(user.name)")
        // DOC-END
    }

    static func sendWithCallback(session: Session) {
        // DOC-BEGIN
        let call = session.perform(GetUser(baseURL: baseURL, id: 1)) { (result: Result<User, any Error>) in
            switch result {
            case .success(let user): print("Hello, \(user.name)")
            case .failure(let error): print(error)  // GET https://api.example.com/users/1 → 404 Not Found: …
            }
        }
        call.cancel()  // the completion gets FetchError.cancelled, exactly once
        // DOC-END
    }

    enum ReadingErrors {
        // DOC-BEGIN
        struct APIError: Error, Decodable {
            let reason: String
        }

        func loadUser(id: Int, from session: Session) async {
            do {
                let user: User = try await session.perform(
                    GetUser(baseURL: baseURL, id: id),
                    errorParser: DecodableErrorParser<APIError>()
                )
                print(user.name)
            } catch let error as APIError {
                print("The server said: \(error.reason)")
            } catch {
                print(error)
            }
        }
        // DOC-END
    }

    static func buildRequests(session: Session) async throws {
        // DOC-BEGIN
        let results: [User] = try await session.perform(
            APIRequest(baseURL)
                .path("users", "search")
                .query("name", "Ada Lovelace")
                .header(.accept("application/json"))
        )
        // DOC-END
        _ = results
    }

    static func writeAgainstTheProtocol(session: Session) {
        // DOC-BEGIN
        struct UserAPI {
            let baseURL: URL
            let performer: any RequestPerforming

            func user(id: Int) async throws -> User {
                try await performer.perform(GetUser(baseURL: baseURL, id: id))
            }
        }

        let api = UserAPI(
            baseURL: baseURL,
            performer: session.with(.retry()).with(.observe { event in print(event) })
        )
        // DOC-END
        _ = api
    }
}
