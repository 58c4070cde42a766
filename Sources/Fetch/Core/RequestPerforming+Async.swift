extension RequestPerforming {
    /// Performs a request and returns its response parsed as `T`.
    ///
    /// Cancelling the Swift `Task` that awaits this call cancels the HTTP request. The result does not go through
    /// the performer's callback queue, so this works in command-line programs and servers where no main run loop
    /// runs.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - errorParser: The object that turns error bodies into errors. The default is none.
    /// - Returns: The parsed value.
    /// - Throws: The error parser's error, a ``FetchError``, or ``FetchError/cancelled`` when the task is cancelled.
    public func perform<T: Parsable>(_ request: any Request, errorParser: (any ErrorParsing)? = nil) async throws -> T {
        let handle = CancellationHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancellable = CompletionDelivery.$isImmediate.withValue(true) {
                    perform(request, errorParser: errorParser) { (result: Result<T, any Error>) in
                        continuation.resume(with: result)
                    }
                }
                handle.attach(cancellable)
            }
        } onCancel: {
            handle.cancel()
        }
    }
}

/// How a performer delivers completions for the call being started on this task.
///
/// The `async` forms set ``isImmediate``: the continuation they resume hops to the awaiting task's executor by
/// itself, so a trip through the callback queue would only add latency, and would hang a program whose main queue
/// never runs.
package enum CompletionDelivery {
    /// Whether to call the completion directly on the thread that finished the call.
    @TaskLocal package static var isImmediate = false
}

/// Connects a Task's cancellation to a call that may not have started yet.
private final class CancellationHandle: Sendable {
    private enum State {
        case waiting
        case attached(any Cancellable)
        case cancelled
    }

    private let state = Locked(State.waiting)

    func attach(_ cancellable: any Cancellable) {
        let cancelNow = state.withLock { state in
            if case .cancelled = state {
                return true
            }
            state = .attached(cancellable)
            return false
        }
        if cancelNow {
            cancellable.cancel()
        }
    }

    func cancel() {
        let attached = state.withLock { state -> (any Cancellable)? in
            defer { state = .cancelled }
            if case .attached(let cancellable) = state {
                return cancellable
            }
            return nil
        }
        attached?.cancel()
    }
}
