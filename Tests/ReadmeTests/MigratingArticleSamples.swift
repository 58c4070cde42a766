// The code samples of the DocC article "Migrating from URLSession or Alamofire"
// (Sources/Fetch/Fetch.docc/MigratingFromURLSession.md), compiled here so that they cannot rot; DocSampleTests
// checks that each DOC-BEGIN…DOC-END region matches a block of the article.

import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum MigratingArticle {
    typealias User = GettingStartedArticle.User
    typealias GetUser = GettingStartedArticle.GetUser

    struct WithURLSession {
        // DOC-BEGIN
        func user(id: Int) async throws -> User {
            let url = baseURL.appending(path: "users/\(id)")
            let (data, response) = try await URLSession.shared.data(from: url)
            guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
                throw URLError(.badServerResponse)
            }
            return try JSONDecoder().decode(User.self, from: data)
        }
        // DOC-END
    }

    struct WithFetch {
        let session: Session

        // DOC-BEGIN
        func user(id: Int) async throws -> User {
            try await session.perform(GetUser(baseURL: baseURL, id: id))
        }
        // DOC-END
    }
}
