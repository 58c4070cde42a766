import Foundation

/// The bearer token of the user logged in, shared by every call of an ``API``.
///
/// Completions arrive on other threads than the calls that start them, so the token is read and written under a
/// lock. `@unchecked Sendable`: `signedIn` is only touched while holding `lock`.
final class TokenStore: @unchecked Sendable {
    /// Who is logged in and the token the server gave them.
    struct SignedIn: Sendable, Equatable {
        let token: String
        let userID: UUID
    }

    private let lock = NSLock()
    private var signedIn: SignedIn?

    /// The current login, or `nil` when no one is logged in.
    var current: SignedIn? {
        lock.lock()
        defer { lock.unlock() }
        return signedIn
    }

    /// Keeps a new login, replacing any earlier one.
    func store(_ login: SignedIn) {
        lock.lock()
        defer { lock.unlock() }
        signedIn = login
    }

    /// Forgets the login.
    func clear() {
        lock.lock()
        defer { lock.unlock() }
        signedIn = nil
    }
}
