import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - ResponseStreaming

extension Session: ResponseStreaming {
    /// Sends a request and returns once the response head has arrived, with its body to read as it arrives.
    ///
    /// ```swift
    /// let stream = try await session.stream(ExportOrders())
    /// for try await order in stream.jsonLines(of: Order.self) {
    ///     print(order)
    /// }
    /// ```
    ///
    /// The stream goes through a `URLSession` of its own, made from the configuration of ``urlSession`` (its
    /// timeouts, headers and protocol classes), because only a session's own delegate receives a task's data on
    /// every platform. The ``redirectPolicy`` applies as it does to `perform`.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors. The default is none.
    /// - Returns: The stream: its ``ResponseStream/response`` head, and its body as chunks.
    /// - Throws: For a status outside 2xx, before any chunk, the error parser's error or
    ///   ``FetchError/unacceptableStatus(_:)`` with up to 64 KiB of the body; a ``FetchError`` for a transport
    ///   failure; ``FetchError/cancelled(request:)`` when the awaiting task is cancelled.
    public func stream(_ request: any Request, errorParser: (any ErrorParsing)? = nil) async throws -> ResponseStream {
        try await stream(request, errorParser: errorParser, bufferLimit: ResponseStream.defaultBufferLimit)
    }

    /// Sends a request and returns once the response head has arrived, buffering at most `bufferLimit` unread
    /// bytes in memory.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - bufferLimit: How many bytes the consumer may fall behind, in memory, before reading from the network
    ///     pauses.
    /// - Returns: The stream.
    /// - Throws: What ``stream(_:errorParser:)`` throws.
    public func stream(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        bufferLimit: Int
    ) async throws -> ResponseStream {
        let configuration = urlSession.configuration
        var urlRequest = try Exchange.makeURLRequest(
            for: request, defaultTimeout: configuration.timeoutIntervalForRequest
        ).get()
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation truncates timeouts to whole seconds (0.5 s would time out at once). For a
            // stream the timeout is how long the server may stay silent, so the next whole second is close enough.
            let timeout = urlRequest.timeoutInterval
            if timeout > 0, timeout.rounded(.up) != timeout {
                urlRequest.timeoutInterval = timeout.rounded(.up)
            }
        #endif
        // One engine per stream until Session keeps one of its own: its URLSession is released when the stream ends.
        let engine = StreamingEngine(configuration: configuration, redirectPolicy: redirectPolicy)
        defer { engine.finishAndInvalidate() }
        return try await engine.stream(urlRequest, for: request, errorParser: errorParser, bufferLimit: bufferLimit)
    }
}
