import Foundation

/// A performer whose callback-form completions go to a queue of its own, such as ``Session``.
///
/// The wrapping performers (``DeduplicatingPerformer``, ``CachingPerformer``) ask the performer they wrap for its
/// raw ``Response`` with ``CompletionDelivery/isImmediate`` set, parse each caller's value on the thread the response
/// arrives on, and deliver only the finished result on this queue, as ``Session`` does.
package protocol CallbackQueueProviding: RequestPerforming {
    /// The queue on which callback-form completions are called, or `nil` for the thread that finished the call.
    var completionQueue: OperationQueue? { get }
}

extension Session: CallbackQueueProviding {
    package var completionQueue: OperationQueue? { callbackQueue }
}

/// Where the wrapping performers call a completion.
package enum CallbackDelivery {
    /// The queue a wrapper of `base` delivers on: `base`'s own when it has one, otherwise none (the calling thread).
    package static func queue(of base: any RequestPerforming) -> OperationQueue? {
        (base as? any CallbackQueueProviding)?.completionQueue
    }

    /// The queue for the call being started on this task: `nil` when an `async` form asked for immediate delivery.
    package static func queueForCurrentCall(_ queue: OperationQueue?) -> OperationQueue? {
        CompletionDelivery.isImmediate ? nil : queue
    }

    /// Calls `completion` with `result` on `queue`, or directly when `queue` is `nil`.
    package static func deliver<T: Sendable>(
        _ result: Result<T, any Error>,
        on queue: OperationQueue?,
        to completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        guard let queue else {
            completion(result)
            return
        }
        queue.addOperation {
            completion(result)
        }
    }
}

/// A call that finished before `perform` returned: cancelling it does nothing.
package struct CompletedCall: Cancellable {
    package init() {}

    package func cancel() {}
}
