import Foundation

/// Who is logged in to an ``API``, and the bearer token their calls carry.
struct SignedIn: Sendable, Equatable {
    /// The token of the latest login: the one the server answered, or the one a new login got when it expired.
    let token: String
    /// The user's ID.
    let userID: UUID
}
