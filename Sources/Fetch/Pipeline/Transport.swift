/// Where a ``Pipeline``'s responses come from: the step after the last middleware, which sends a request and hands
/// back the response unparsed.
///
/// ``Session`` sends through `URLSession`; the doubles in FetchTesting answer from canned responses. A transport
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
    ) -> any Cancellable
}
