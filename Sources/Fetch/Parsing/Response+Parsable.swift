// MARK: - Parsable

extension Response: Parsable {
    /// The response itself, whatever its status: for callers that inspect statuses and headers themselves.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - errorParser: Not used: no status is an error here.
    /// - Returns: `response`, always successfully.
    public static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Self, any Error> {
        .success(response)
    }
}
