extension Response {
    /// This response when its status is 2xx; otherwise the error your error parser reads from it, or
    /// ``FetchError/unacceptableStatus(_:)`` when there is none or it returns `nil`.
    ///
    /// The first step of every ``Parsable`` conformance, Fetch's own included: without it, a parser of your own
    /// format reads a `404` error page as a value and the error parser is never asked.
    ///
    /// ```swift
    /// extension Feed: Parsable {
    ///     static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Feed, any Error> {
    ///         response.requireSuccess(errorParser: errorParser).flatMap { response in
    ///             Result { try Feed(xml: response.data ?? Data()) }
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter errorParser: The object that turns an error response into an error, or `nil`.
    /// - Returns: `.success(self)` for a 2xx status, the error to deliver otherwise.
    public func requireSuccess(errorParser: (any ErrorParsing)?) -> Result<Response, any Error> {
        if isSuccess {
            return .success(self)
        }
        if let error = errorParser?.parseError(from: self) {
            return .failure(error)
        }
        return .failure(FetchError.unacceptableStatus(self))
    }
}

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
