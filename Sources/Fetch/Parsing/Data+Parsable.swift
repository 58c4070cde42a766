import Foundation

// MARK: - Parsable

extension Data: Parsable {
    /// The body's bytes as they came, empty when there was no body, for any 2xx status.
    ///
    /// - Parameters:
    ///   - response: The response to read.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The body, or the error for a status outside 2xx.
    public static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Self, any Error> {
        response.requireSuccess(errorParser: errorParser).map { $0.data ?? Data() }
    }
}
