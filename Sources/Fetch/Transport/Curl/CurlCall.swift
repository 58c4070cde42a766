#if os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One request of a ``CurlTransport``, as its caller holds it: cancelling it asks the event loop to stop it.
    final class CurlCall: Cancellable {
        private let loop: CurlEventLoop
        private let cancelled = Locked(false)

        init(loop: CurlEventLoop) {
            self.loop = loop
        }

        /// Whether `cancel()` was called; the event loop reads it before starting the request.
        var isCancelled: Bool {
            cancelled.withLock { $0 }
        }

        func cancel() {
            let isFirst = cancelled.withLock { cancelled in
                defer { cancelled = true }
                return !cancelled
            }
            if isFirst {
                loop.cancel(self)
            }
        }
    }

    /// What the event loop needs to run one request: the request, its timeout and whom to tell.
    struct CurlJob: Sendable {
        let request: URLRequest
        let timeout: TimeInterval
        let completion: @Sendable (Result<(HTTPURLResponse, Data), any Error>) -> Void
    }
#endif
