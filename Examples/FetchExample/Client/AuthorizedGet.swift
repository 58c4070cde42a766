import Fetch
import Foundation

/// `GET api/<path>` with `Authorization: Bearer <token>`, or with no `Authorization` when no one is logged in:
/// then the server answers 401 and says why.
struct AuthorizedGet: Request {
    let url: URL
    let token: String?

    var headers: [String: String]? {
        token.map { ["Authorization": "Bearer \($0)"] }
    }

    init(baseURL: URL, path: String, token: String?) {
        self.url = baseURL.appending(path: path)
        self.token = token
    }
}
