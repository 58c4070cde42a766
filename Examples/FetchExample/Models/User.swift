import Fetch
import Foundation

/// A user account, from `GET api/users/<id>`.
struct User: Decodable, Parsable, Equatable {
    let id: UUID
    let username: String
    let name: String
    let email: String
    let department: String
    let title: String
}
