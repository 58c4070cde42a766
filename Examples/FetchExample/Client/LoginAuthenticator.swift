import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``API``'s `Authenticator`: a `BearerAuthenticator`, which puts the token on each call and gets a new one by
/// logging in again, with one rule of its own about which answers ask for that.
///
/// A 401 to a call that carried a token means the token was turned down: log in again and replay the call. A 401 to a
/// call that carried none means that no one is logged in: there is nothing to log in again with, so the caller gets
/// the server's own answer (`this call needs Authorization: Bearer <token>…`), read by the API's error parser.
/// `BearerAuthenticator` alone would refresh after any 401, and a refresh that cannot succeed would hide that answer
/// behind `FetchError.credentialRefreshFailed`.
struct LoginAuthenticator: Authenticator {
    /// The token, and how to get a new one.
    let tokens: BearerAuthenticator

    func apply(to request: inout AdaptedRequest) {
        tokens.apply(to: &request)
    }

    func refresh(completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        tokens.refresh(completion: completion)
    }

    func isRejection(_ response: Response) -> Bool {
        response.status == 401 && response.originalRequest.headers["Authorization"] != nil
    }
}
