#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// The delegate queue of a ``StreamingEngine`` on swift-corelibs-foundation: it runs each delegate call at once,
    /// on the thread that hands it over, instead of queueing it.
    ///
    /// swift-corelibs-foundation reads the socket through libcurl on one serial queue and hands each chunk (16 KiB)
    /// to the delegate queue with `addOperation`, without waiting. When the delegate queue's thread gets less time
    /// than libcurl's, the operations pile up, each holding its chunk: streaming 500 MB to a slow consumer left up to
    /// 7,000 of them (115 MB) waiting. Run inline, a chunk reaches the ``ChunkBuffer`` before libcurl reads the next
    /// one, so no queue can grow between them.
    ///
    /// Every delegate method of the engine is quick and never waits. They must not call `URLSessionTask` methods,
    /// which synchronise with that same serial queue: ``StreamCall`` cancels its task from another queue.
    final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
        // `@unchecked Sendable`: no state of its own; OperationQueue is thread-safe.
        override init() {
            super.init()
            name = "Fetch.StreamingEngine.inline"
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }

        override func addOperation(_ operation: Operation) {
            operation.start()
        }
    }
#endif
