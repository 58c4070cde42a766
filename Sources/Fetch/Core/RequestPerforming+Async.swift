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
    /// - Throws: The error parser's error, a ``FetchError``, or ``FetchError/cancelled(request:)`` when the task is cancelled.
    public func perform<T: Parsable>(_ request: any Request, errorParser: (any ErrorParsing)? = nil) async throws -> T {
        let answer: Result<Response, any Error>
        do {
            answer = .success(try await pipeline.response(for: request))
        } catch {
            answer = .failure(error)
        }
        return try Pipeline.parse(answer, as: T.self, for: request, errorParser: errorParser).get()
    }

    /// Performs a request and returns its response parsed as `type`, with no annotation needed:
    /// `let user = try await session.perform(GetUser(id: 1), as: User.self)`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - type: The type to parse the response as.
    ///   - errorParser: The object that turns error bodies into errors. The default is none.
    /// - Returns: The parsed value.
    /// - Throws: The error parser's error, a ``FetchError``, or ``FetchError/cancelled(request:)`` when the task is cancelled.
    public func perform<T: Parsable>(
        _ request: any Request,
        as type: T.Type,
        errorParser: (any ErrorParsing)? = nil
    ) async throws -> T {
        try await perform(request, errorParser: errorParser)
    }

    /// Stands in for a call whose result type is named nowhere, so that the compiler says what to do instead of
    /// failing to produce a diagnostic.
    @available(
        *, unavailable,
        message: "name the type to parse the response as: perform(request, as: User.self), or annotate the result"
    )
    public func perform(_ request: any Request, errorParser: (any ErrorParsing)? = nil) async throws -> Never {
        throw FetchError.invalidRequest("\(request.method) \(request.url.absoluteString): no result type named")
    }
}
