import Fetch

/// A person of `GET api/employees`.
struct Employee: Decodable, Parsable, Equatable {
    let id: Int
    let name: String
    let department: String
    let title: String
    let email: String
}
