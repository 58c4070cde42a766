/// A call in flight that can be cancelled.
///
/// Cancelling is idempotent and thread-safe. A call cancelled before it finished completes once, with
/// ``FetchError/cancelled(request:)``; cancelling a finished call does nothing.
public protocol CancellableCall: Sendable {
    /// Cancels the call if it has not finished yet.
    func cancel()
}

/// A call that finished before `perform` returned: cancelling it does nothing.
package struct CompletedCall: CancellableCall {
    package init() {}

    package func cancel() {}
}
