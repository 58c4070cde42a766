import Foundation

/// The account logged in to an ``API``: its user ID, and its credentials, with which the API logs in again when the
/// server turns its token down.
///
/// Completions arrive on other threads than the calls that start them, so the account is read and written under a
/// lock. `@unchecked Sendable`: `account` is only touched while holding `lock`.
final class AccountStore: @unchecked Sendable {
    /// One login's credentials and the user they belong to.
    struct Account: Sendable, Equatable {
        let username: String
        let password: String
        let userID: UUID
    }

    private let lock = NSLock()
    private var account: Account?

    /// The account logged in, or `nil` when no one is.
    var current: Account? {
        lock.lock()
        defer { lock.unlock() }
        return account
    }

    /// Keeps a new login, replacing any earlier one.
    func store(_ login: Account) {
        lock.lock()
        defer { lock.unlock() }
        account = login
    }

    /// Forgets the account.
    func clear() {
        lock.lock()
        defer { lock.unlock() }
        account = nil
    }
}
