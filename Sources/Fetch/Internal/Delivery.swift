import Foundation

/// Where a callback-form completion is called: directly, or on a performer's callback queue.
///
/// A performer captures the delivery when `perform` is called: the `async` forms (and performers that wrap another)
/// ask for direct delivery through ``CompletionDelivery/isImmediate``; otherwise results hop to the callback queue.
package struct Delivery<T: Sendable>: Sendable {
    private let queue: OperationQueue?
    private let completion: @Sendable (Result<T, any Error>) -> Void

    /// A delivery on `callbackQueue`, or a direct one when the caller asked for it or there is no queue.
    package init(callbackQueue: OperationQueue?, completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        self.queue = CompletionDelivery.isImmediate ? nil : callbackQueue
        self.completion = completion
    }

    /// A delivery on the callback queue of `performer`, when it has one.
    package init(
        matching performer: any RequestPerforming,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        self.init(callbackQueue: CallbackDelivery.queue(of: performer), completion: completion)
    }

    /// Calls the completion with `result`, on the queue if there is one.
    package func callAsFunction(_ result: Result<T, any Error>) {
        CallbackDelivery.deliver(result, on: queue, to: completion)
    }
}

/// Where wrapping performers call a completion, for those that keep the queue apart from the completion.
package enum CallbackDelivery {
    /// The queue a wrapper of `performer` delivers on: `performer`'s own when it has one, otherwise none (the
    /// thread that finished the call).
    package static func queue(of performer: any RequestPerforming) -> OperationQueue? {
        (performer as? any CallbackQueueProviding)?.deliveryQueue
    }

    /// The queue for the call being started on this task: `nil` when an `async` form asked for direct delivery.
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

/// A performer that calls callback-form completions on a queue, so that performers wrapping it deliver there too.
package protocol CallbackQueueProviding {
    /// The queue on which callback-form completions are called, or `nil` when they are called directly.
    var deliveryQueue: OperationQueue? { get }
}

extension RequestPerforming {
    /// Performs `request` on this performer with direct delivery: what wrapping performers use for the calls they
    /// make on the performer they wrap, so that only the final result hops to the callback queue, once.
    package func performDirectly<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        CompletionDelivery.$isImmediate.withValue(true) {
            perform(request, errorParser: errorParser, completion: completion)
        }
    }
}
