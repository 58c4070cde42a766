import Fetch
import Foundation

/// The answer to `POST api/users/login`: `{"token": "…", "user": {"id": "<uuid>"}}`.
struct LoginAnswer: Decodable, Parsable, Equatable {
    /// The part of the user the login answer names.
    struct UserReference: Decodable, Equatable {
        let id: UUID
    }

    /// The bearer token for every later call.
    let token: String
    let user: UserReference
}
