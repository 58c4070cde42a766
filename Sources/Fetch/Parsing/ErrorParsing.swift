import Foundation

/// Turns the body of an error response into a typed error of your API.
///
/// A ``Parsable`` type asks its error parser when the status is outside 2xx. Return `nil` when the body is not an
/// error you recognise; the caller then gets ``FetchError/unacceptableStatus(_:)``, which quotes the body.
///
/// ```swift
/// struct APIErrorParser: ErrorParsing {
///     func parseError(from data: Data?, status: Int) -> (any Error)? {
///         status == 401 ? APIError.notLoggedIn : nil
///     }
/// }
/// ```
public protocol ErrorParsing: Sendable {
    /// Reads an error from the body of a response whose status is outside 2xx.
    ///
    /// - Parameters:
    ///   - data: The response body, or `nil` when there was none.
    ///   - status: The HTTP status code.
    /// - Returns: The error to deliver to the caller, or `nil` to deliver ``FetchError/unacceptableStatus(_:)``.
    func parseError(from data: Data?, status: Int) -> (any Error)?
}

/// An ``ErrorParsing`` object that decodes a `Decodable` error type from JSON error bodies.
///
/// For an API that answers `{"error": true, "reason": "no such user"}`:
///
/// ```swift
/// struct APIError: Error, Decodable {
///     let reason: String
/// }
/// let user: User = try await session.perform(request, errorParser: DecodableErrorParser<APIError>())
/// ```
///
/// A body that does not decode as `APIError` (an HTML error page from a proxy, say) is not an error of yours: the
/// caller gets ``FetchError/unacceptableStatus(_:)``, whose message quotes the body.
public struct DecodableErrorParser<APIError: Decodable & Error>: ErrorParsing {
    private let decoder: JSONDecoder

    /// Creates a parser for `APIError` bodies.
    ///
    /// - Parameter decoder: The decoder for error bodies. The default is the same decoder that `Decodable`
    ///   ``Parsable`` models use.
    public init(decoder: JSONDecoder = DefaultDecoding.decoder) {
        self.decoder = decoder
    }

    /// Decodes `APIError` from `data`.
    ///
    /// - Parameters:
    ///   - data: The error response's body.
    ///   - status: The HTTP status code (not used).
    /// - Returns: The decoded error, or `nil` when the body is empty or is not an `APIError`.
    public func parseError(from data: Data?, status: Int) -> (any Error)? {
        guard let data, !data.isEmpty else {
            return nil
        }
        do {
            return try decoder.decode(APIError.self, from: data)
        } catch {
            // Not an error body of this API: returning nil makes the caller get `unacceptableStatus`,
            // which carries the whole response, so nothing is lost.
            return nil
        }
    }
}
