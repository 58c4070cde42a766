import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Applies credentials to requests and gets new ones when the server rejects them: what an
/// ``Middleware/authenticate(with:)`` needs.
///
/// The performer calls ``refresh(completion:)`` once at a time however many requests were rejected together, and
/// replays each rejected request once with the new credentials.
public protocol Authenticator: Sendable {
    /// Adds the current credentials to a request about to be sent: `request.headers["Authorization"] = …`.
    ///
    /// - Parameter request: The request, changed in place as any middleware changes one.
    /// - Throws: An error that fails the call, for example when there are no credentials and none can be had.
    func apply(to request: inout AdaptedRequest) throws

    /// Gets new credentials, typically by calling a token endpoint.
    ///
    /// Send that call through a performer that does not authenticate (the `Session` itself), or a rejected refresh
    /// would ask for another refresh.
    ///
    /// - Parameter completion: Called exactly once: with success when new credentials are in place, or with the
    ///   error that fails every request waiting for them.
    func refresh(completion: @escaping @Sendable (Result<Void, any Error>) -> Void)

    /// Whether `response` says the credentials were rejected. The default is a 401 status.
    ///
    /// - Parameter response: A response to a request that carried credentials.
    /// - Returns: `true` to refresh the credentials and replay the request.
    func isRejection(_ response: Response) -> Bool
}

extension Authenticator {
    /// A 401 Unauthorized status.
    ///
    /// - Parameter response: A response to a request that carried credentials.
    /// - Returns: Whether the status is 401.
    public func isRejection(_ response: Response) -> Bool {
        response.status == 401
    }
}

/// An ``Authenticator`` for bearer tokens: sends `Authorization: Bearer <token>` and gets a new token from a
/// closure when the server answers 401.
///
/// ```swift
/// let tokens = BearerAuthenticator(token: savedToken) {
///     let answer: TokenResponse = try await session.perform(RefreshToken(refreshToken: savedRefreshToken))
///     return answer.token
/// }
/// let api = session.with(.authenticate(with: tokens))
/// ```
public final class BearerAuthenticator: Authenticator {
    private let storedToken: Locked<String?>
    private let getToken: @Sendable (@escaping @Sendable (Result<String, any Error>) -> Void) -> Void

    /// Creates an authenticator whose refresh completes through a callback.
    ///
    /// - Parameters:
    ///   - token: The current token, or `nil` when there is none yet (requests then go without one until a 401
    ///     asks for a refresh).
    ///   - refresh: Gets a new token and calls its completion exactly once.
    package init(
        token: String?,
        refresh: @escaping @Sendable (@escaping @Sendable (Result<String, any Error>) -> Void) -> Void
    ) {
        self.storedToken = Locked(token)
        self.getToken = refresh
    }

    /// Creates an authenticator whose refresh is an `async` function.
    ///
    /// - Parameters:
    ///   - token: The current token, or `nil`.
    ///   - refresh: Returns a new token, or throws the error that fails the requests waiting for it.
    public convenience init(token: String?, refresh: @escaping @Sendable () async throws -> String) {
        self.init(token: token) { completion in
            Task {
                do {
                    completion(.success(try await refresh()))
                } catch {
                    completion(.failure(error))
                }
            }
        }
    }

    /// The current token.
    public var token: String? {
        storedToken.withLock { $0 }
    }

    /// Replaces the token, for example after a login, or with `nil` after a logout.
    ///
    /// - Parameter token: The new token.
    public func setToken(_ token: String?) {
        storedToken.withLock { $0 = token }
    }

    /// Sets `Authorization: Bearer <token>` when there is a token.
    ///
    /// - Parameter request: The request, changed in place.
    public func apply(to request: inout AdaptedRequest) {
        if let token {
            request.headers["Authorization"] = "Bearer \(token)"
        }
    }

    /// Gets a new token from the refresh closure and keeps it.
    ///
    /// - Parameter completion: Called once the new token is kept, or with the refresh's error.
    public func refresh(completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        getToken { result in
            completion(result.map { self.setToken($0) })
        }
    }
}
