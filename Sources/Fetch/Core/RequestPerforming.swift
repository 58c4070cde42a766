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
/// Fetch's own performers are each a ``Pipeline``: middlewares in front of a ``Transport``. Implement ``pipeline``
/// to make a performer of your own one too; a type that implements only the callback form is wrapped as a
/// transport, so that middlewares can still be put in front of it.
public protocol RequestPerforming: ResponseStreaming {
    /// Performs a request and parses its response as `T`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once with the parsed value or the error: when the call finishes, or with
    ///     ``FetchError/cancelled(request:)`` when it is cancelled first.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall

    /// The pipeline this performer runs calls through: what middlewares added with ``with(_:)`` extend, and what
    /// the `async` forms use.
    ///
    /// The default is a pipeline with no middlewares whose transport is this performer's callback form.
    var pipeline: Pipeline { get }
}

extension RequestPerforming {
    /// Performs a request and parses its response as `type`, which names the result so that the completion needs
    /// no annotation: `perform(GetUser(id: 1), as: User.self) { result in … }`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - type: The type to parse the response as.
    ///   - errorParser: The object that turns error bodies into errors. The default is none.
    ///   - completion: Called exactly once with the parsed value or the error.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        as type: T.Type,
        errorParser: (any ErrorParsing)? = nil,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any CancellableCall {
        perform(request, errorParser: errorParser, completion: completion)
    }

    /// Stands in for a callback whose result type is named nowhere, so that the compiler says what to do instead of
    /// failing to produce a diagnostic.
    @available(
        *, unavailable,
        message: "name the type to parse the response as: perform(request, as: User.self) { result in … }"
    )
    @discardableResult
    public func perform(
        _ request: any Request,
        errorParser: (any ErrorParsing)? = nil,
        completion: @escaping @Sendable (Result<Never, any Error>) -> Void
    ) -> any CancellableCall {
        perform(request, errorParser: errorParser) { (result: Result<Response, any Error>) in
            completion(result.flatMap { _ in .failure(FetchError.notHTTPResponse()) })
        }
    }

    /// A pipeline over this performer's callback form, with no middlewares and no callback queue of its own.
    public var pipeline: Pipeline {
        Pipeline(PerformerTransport(performer: self))
    }

    /// This performer with `middlewares` outside what it already does, delivering where it delivers.
    ///
    /// ```swift
    /// let api = session.with(.observe { print($0) }, .retry(), RequestSigner(key: "k"))
    /// ```
    ///
    /// The built-ins (``Middleware/retry(_:scheduler:)``, ``Middleware/observe(_:)``, ``Middleware/cache(_:)``, …)
    /// and a user's own middlewares mix freely. `session.with(a, b)` is `session.with(b).with(a)`.
    ///
    /// - Parameter middlewares: The middlewares to add, outermost first: the first sees each request first and each
    ///   response last.
    /// - Returns: The pipeline.
    public func with(_ middlewares: any Middleware...) -> Pipeline {
        pipeline.adding(middlewares)
    }

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
    ) -> any CancellableCall {
        perform(request, errorParser: nil, completion: completion)
    }
}

/// A performer that implements only the callback form, as the transport of its default ``RequestPerforming/pipeline``.
private struct PerformerTransport: Transport {
    let performer: any RequestPerforming

    func send(
        _ request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall {
        performer.perform(request, errorParser: nil, completion: completion)
    }
}
