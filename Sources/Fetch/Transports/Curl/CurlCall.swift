#if os(Linux)
    import Foundation
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One request of a ``CurlTransport``, as its caller holds it: cancelling it asks the event loop to stop it.
    final class CurlCall: CancellableCall {
        private let loop: CurlEventLoop
        /// An atomic flag rather than a lock: every call makes one, and a lock is an allocation of its own.
        private let cancelled = Atomic(false)

        init(loop: CurlEventLoop) {
            self.loop = loop
        }

        /// Whether `cancel()` was called; the event loop reads it before starting the request.
        var isCancelled: Bool {
            cancelled.load(ordering: .acquiring)
        }

        func cancel() {
            let isFirst = cancelled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
                .exchanged
            if isFirst {
                loop.cancel(self)
            }
        }
    }

    /// What the event loop needs to run one request: the request, its timeout and whom to tell.
    struct CurlJob: Sendable {
        /// How the outcome is delivered.
        enum Delivery: Sendable {
            /// Once, with the whole body.
            case whole(@Sendable (Result<(HTTPURLResponse, Data), any Error>) -> Void)
            /// Once, with the head as libcurl collected it and the whole body: a ``Session``'s path.
            case head(@Sendable (Result<(CurlHead, Data), any Error>) -> Void)
            /// As events: the head, each piece of the body as it arrives, then the end.
            case stream(@Sendable (CurlTransport.StreamEvent) -> Void)
        }

        let request: URLRequest
        let timeout: TimeInterval
        /// The header fields the request declared (``Request/headers``), which are sent apart and in order where
        /// ``request`` holds them combined (``Exchange/fields(declared:in:)``).
        var declaredFields: HeaderFields = [:]
        /// How long the server may stay silent, in seconds (rounded up to whole seconds); `0` for no limit.
        var idleTimeout: TimeInterval = 0
        /// The most bytes of a body collected whole; past it the transfer ends with
        /// ``FetchError/responseTooLarge(limit:request:)``. Streams are not limited.
        var maximumBodyBytes = Int.max
        let delivery: Delivery

        /// Ends the job with `error` (before or instead of any answer).
        func fail(_ error: any Error) {
            switch delivery {
            case .whole(let completion):
                completion(.failure(error))
            case .head(let completion):
                completion(.failure(error))
            case .stream(let receive):
                receive(.failed(error))
            }
        }
    }
#endif
