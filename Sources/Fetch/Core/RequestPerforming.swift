import Foundation

/// An object that performs requests and parses their responses: a ``Session`` in the app, a `MockPerformer` or
/// `SpyPerformer` from FetchTesting in unit tests.
///
/// Write API clients against this protocol so that tests can hand them a double:
///
/// ```swift
/// struct UserAPI {
///     let performer: any RequestPerforming
///
///     func user(id: Int) async throws -> User {
///         try await performer.perform(GetUser(id: id))
///     }
/// }
/// ```
///
/// The one requirement is the callback form; the forms without an error parser and the `async` forms are built on
/// it.
public protocol RequestPerforming: Sendable {
    /// Performs a request and parses its response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once with the parsed value or the error: when the call finishes, or with
    ///     ``FetchError/cancelled`` when it is cancelled first.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable
}

extension RequestPerforming {
    /// Performs a request without an error parser and parses its response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - completion: Called exactly once with the parsed value or the error.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        perform(request, errorParser: nil, completion: completion)
    }
}
