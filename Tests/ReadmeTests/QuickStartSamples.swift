// The code samples of README.md, compiled here so that they cannot rot. Each region between README-BEGIN and
// README-END is one ```swift block of the README, verbatim but for indentation; ReadmeTests checks that they match.

// README-BEGIN
import Fetch
import Foundation

struct User: Decodable, Parsable {
    let id: Int
    let name: String
}

struct GetUser: Request {
    let baseURL: URL
    let id: Int

    var url: URL { baseURL.appending(path: "users/\(id)") }
}
// README-END

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let baseURL = URLComponents(string: "https://api.example.com")?.url ?? URL(filePath: "/")

func callbackSample() {
    // README-BEGIN
    let callbacks = OperationQueue()
    callbacks.maxConcurrentOperationCount = 1
    let session = Session(callbackQueue: callbacks)
    session.perform(GetUser(baseURL: baseURL, id: 1)) { (result: Result<User, any Error>) in
        switch result {
        case .success(let user): print("Hello, \(user.name)")
        case .failure(let error): print(error)  // GET https://api.example.com/users/1 → 404 Not Found: …
        }
    }
    // README-END
}

func asyncSample() async throws {
    // README-BEGIN
    let session = Session()
    let user: User = try await session.perform(GetUser(baseURL: baseURL, id: 1))
    // README-END
    _ = user
}

/// The error of the API the samples talk to.
struct APIError: Error, Decodable {
    let reason: String
}
