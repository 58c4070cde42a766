extension RequestPerforming {
    /// Performs a request and returns its response parsed as `T`.
    ///
    /// Cancelling the Swift `Task` that awaits this call cancels the HTTP request, or keeps it from being sent when
    /// the task is already cancelled. The result does not go through the performer's callback queue, so this works
    /// in command-line programs and servers where no main run loop runs; the response is parsed on the awaiting
    /// task.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors. The default is none.
    /// - Returns: The parsed value.
    /// - Throws: The error parser's error, a ``FetchError``, or ``FetchError/cancelled`` when the task is cancelled.
    public func perform<T: Parsable>(_ request: any Request, errorParser: (any ErrorParsing)? = nil) async throws -> T {
        let response = try await pipeline.response(for: request)
        return try Pipeline.parse(.success(response), as: T.self, for: request, errorParser: errorParser).get()
    }
}
