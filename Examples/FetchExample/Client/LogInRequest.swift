import Fetch
import Foundation

/// `POST api/users/login` with HTTP Basic authentication: `Authorization: Basic base64("username:password")`.
struct LogInRequest: Request {
    let url: URL
    let headers: [String: String]?

    var method: HTTPMethod { .post }

    init(baseURL: URL, username: String, password: String) {
        self.url = baseURL.appending(path: "api/users/login")
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        self.headers = ["Authorization": "Basic \(credentials)"]
    }
}
