import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RequestPerforming {
    /// Sends a request through this performer's ``pipeline`` and returns once the response head has arrived, with
    /// its body to read as it arrives.
    ///
    /// ```swift
    /// let stream = try await session.stream(ExportOrders())
    /// for try await order in stream.jsonLines(of: Order.self) {
    ///     print(order)
    /// }
    /// ```
    ///
    /// Middlewares apply as they do to `perform`: adapters and authentication change the request, a retry or a
    /// token refresh acts on the head before anything reaches the caller, observers see the call; a cache and
    /// deduplication pass a stream on (``CallContext/isStreaming``). Over the synchronous doubles of FetchTesting,
    /// the whole scripted body arrives as one chunk.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors. The default is none.
    /// - Returns: The stream: its ``ResponseStream/response`` head, and its body as chunks.
    /// - Throws: For a status outside 2xx, before any chunk, the error parser's error or
    ///   ``FetchError/unacceptableStatus(_:)`` with up to 64 KiB of the body; a ``FetchError`` for a transport
    ///   failure; ``FetchError/cancelled(request:)`` when the awaiting task is cancelled.
    public func stream(_ request: any Request, errorParser: (any ErrorParsing)? = nil) async throws -> ResponseStream {
        try await pipeline.stream(
            request, errorParser: errorParser, maximumBufferSize: ResponseStream.defaultBufferLimit,
            observers: ObserversHandOff.take() ?? EventObservers())
    }
}

extension RequestPerforming {
    /// Sends a request through this performer's ``pipeline`` and returns once the response head has arrived,
    /// buffering at most `maximumBufferSize` unread bytes in memory.
    ///
    /// The stream goes through the pipeline's middlewares and transport, whose ``RedirectPolicy`` applies as it does
    /// to `perform`; on a ``URLSessionTransport`` over a `URLSession` of yours, through that `URLSession` (see
    /// <doc:PlatformDifferences> for Linux).
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - maximumBufferSize: How many bytes the consumer may fall behind, in memory, before reading from the network
    ///     pauses.
    /// - Returns: The stream.
    /// - Throws: What ``ResponseStreaming/stream(_:errorParser:)`` throws.
    public func stream(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        maximumBufferSize: Int
    ) async throws -> ResponseStream {
        try await pipeline.stream(
            request, errorParser: errorParser, maximumBufferSize: maximumBufferSize,
            observers: ObserversHandOff.take() ?? EventObservers())
    }
}
