import Foundation

/// Turns an error response into a typed error of your API.
///
/// A ``Parsable`` type asks its error parser when the status is outside 2xx (through
/// ``Response/requireSuccess(errorParser:)``). Return `nil` when the response is not an error you recognise; the
/// caller then gets ``FetchError/unacceptableStatus(_:)``, which quotes the body.
///
/// Implement its one requirement, ``parseError(from:)``. It sees the whole ``Response``, so the error can carry a
/// header such as a request id, `WWW-Authenticate` or `Retry-After`:
///
/// ```swift
/// struct APIErrorParser: ErrorParsing {
///     func parseError(from response: Response) -> (any Error)? {
///         guard response.status == 401 else { return nil }
///         return APIError.notLoggedIn(challenge: response.headers["WWW-Authenticate"])
///     }
/// }
/// ```
///
/// A parser that needs only the body reads ``Response/data`` and ``Response/status``.
public protocol ErrorParsing: Sendable {
    /// Reads an error from a response whose status is outside 2xx.
    ///
    /// - Parameter response: The error response, with its status, headers, body and request.
    /// - Returns: The error to deliver to the caller, or `nil` to deliver ``FetchError/unacceptableStatus(_:)``.
    func parseError(from response: Response) -> (any Error)?
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

    /// Decodes `APIError` from the response's body.
    ///
    /// - Parameter response: The error response (its status is not used).
    /// - Returns: The decoded error, or `nil` when the body is empty or is not an `APIError`.
    public func parseError(from response: Response) -> (any Error)? {
        guard let data = response.data, !data.isEmpty else {
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
