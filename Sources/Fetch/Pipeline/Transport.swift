/// Where a ``Pipeline``'s responses come from: the step after the last middleware, which sends a request and hands
/// back the response unparsed.
///
/// Fetch has two: ``URLSessionTransport`` everywhere and ``CurlTransport`` on Linux; the doubles in FetchTesting
/// answer from canned responses. A ``Session`` takes any of them, or one of your own. A transport
/// answers every status with a ``Response`` (a 404 is a response, not an error) and fails only when there is no
/// response: the network failed, the call timed out or it was cancelled.
public protocol Transport: Sendable {
    /// Sends `request`.
    ///
    /// - Parameters:
    ///   - request: The request, as the middlewares passed it on.
    ///   - completion: Called exactly once, with the response of any status or with the failure: ``FetchError``s
    ///     for Fetch's own (``FetchError/cancelled(request:)`` when the returned handle cancels it first).
    /// - Returns: A handle that cancels the request.
    func send(
        _ request: any Request,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> any CancellableCall

    /// Sends `request` and hands back its response as soon as the head has arrived, with the body to read as it
    /// arrives: the transport step of ``RequestPerforming/stream(_:errorParser:maximumBufferSize:)``.
    ///
    /// The default implementation sends the request with ``send(_:completion:)`` and hands back the whole body as
    /// one chunk, which is what the synchronous doubles need; a transport that reads bodies as they arrive
    /// implements it.
    ///
    /// - Parameters:
    ///   - request: The request, as the middlewares passed it on.
    ///   - maximumBufferSize: How many unread bytes may wait in memory before reading from the network pauses.
    ///   - completion: Called exactly once: with the stream of a response of any status (the pipeline reads an
    ///     error body itself), or with the failure that kept a head from arriving.
    /// - Returns: A handle that cancels the request until the head has arrived; then the stream cancels it.
    func stream(
        _ request: any Request,
        maximumBufferSize: Int,
        completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
    ) -> any CancellableCall
}

/// A transport that may call its completions on a thread where no middleware may run: swift-corelibs-foundation's own
/// serial queue (which `URLSessionTask` methods synchronise with) or libcurl's event-loop thread (which every other
/// request waits for).
///
/// The pipeline hands such an answer on to its parsing queue before a middleware sees it; a call with no middleware
/// takes it where it arrives, since the pipeline's own steps there (a continuation resumed, a hop to the parsing
/// queue) are short and never wait.
package protocol RestrictedThreadTransport: Transport {
    /// Whether ``Transport/send(_:completion:)`` may complete on such a thread.
    var sendsCompleteOnRestrictedThread: Bool { get }

    /// Whether ``Transport/stream(_:maximumBufferSize:completion:)`` may complete on such a thread.
    var streamsCompleteOnRestrictedThread: Bool { get }
}

/// A transport that can cancel every call it has in flight, whatever middlewares the calls went through: each of
/// Fetch's own, for ``Session/cancelAllTasks()``.
package protocol CancellingTransport: Transport {
    /// Cancels every call and stream in flight; each completes with ``FetchError/cancelled(request:)``.
    func cancelAll()
}

extension Transport {
    /// Sends `request` with ``send(_:completion:)`` and hands back its whole body as one chunk.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - maximumBufferSize: Not used: the body is already whole.
    ///   - completion: Called exactly once with the stream or the failure.
    /// - Returns: The handle of the `send`.
    public func stream(
        _ request: any Request,
        maximumBufferSize: Int,
        completion: @escaping @Sendable (Result<ResponseStream, any Error>) -> Void
    ) -> any CancellableCall {
        send(request) { answer in
            completion(answer.map { ResponseStream(whole: $0) })
        }
    }
}
