/// A response whose body is not read: for `204 No Content`, `HEAD` requests, and calls whose body you ignore.
///
/// Parsing succeeds for any 2xx status, whatever the body; other statuses become errors as for any model.
///
/// ```swift
/// let _: EmptyResponse = try await session.perform(DeleteUser(id: 7))
/// ```
public struct EmptyResponse: Sendable, Hashable {
    /// Creates an empty response value.
    public init() {}
}

// MARK: - Parsable

extension EmptyResponse: Parsable {
    /// Succeeds for any 2xx status without reading the body.
    ///
    /// - Parameters:
    ///   - response: The response to read.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: An `EmptyResponse`, or the error for a status outside 2xx.
    public static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Self, any Error> {
        response.requireSuccess(errorParser: errorParser).map { _ in EmptyResponse() }
    }
}
