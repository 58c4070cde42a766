#if os(Linux)
    import CFetchCurl
    import Foundation

    /// The loop of a ``CurlEventLoop``: everything it owns is touched by the loop's thread only.
    ///
    /// Each turn takes the commands from the inbox, lets libcurl do the work that is ready (`curl_multi_perform`),
    /// completes the transfers that finished, and sleeps in `curl_multi_poll` until a socket is ready, a libcurl
    /// timer is due, or another thread wakes it.
    final class CurlLoopWorker {
        /// Idle easy handles kept for reuse; more than this are freed. Creating a handle and freeing it costs about
        /// 10 K instructions (libcurl 7.88, callgrind), some 4 % of a small call, and a fresh one holds about 8 KB, so
        /// the pool keeps one for each of up to 256 calls at once.
        private static let poolLimit = 256

        private let inbox: Locked<CurlEventLoop.Inbox>
        private let options: CurlTransport.Options
        private let library: CurlLibrary
        private let multi: OpaquePointer
        /// The transfers in flight, by their call (for cancelling); a finished easy handle names its transfer itself
        /// (``CurlTransfer/of(_:)``). The loop holds each transfer here for as long as its handle is in the multi
        /// handle.
        private var transfersByCall: [ObjectIdentifier: CurlTransfer] = [:]
        private var idleHandles: [CurlEasy] = []

        init(inbox: Locked<CurlEventLoop.Inbox>, options: CurlTransport.Options, library: CurlLibrary) {
            self.inbox = inbox
            self.options = options
            self.library = library
            // The inbox holds the handle from the loop's creation until `run` clears it, on this thread.
            guard let multi = inbox.withLock({ $0.multi }) else {
                preconditionFailure("CurlEventLoop starts its worker with a multi handle")
            }
            self.multi = multi
        }

        func run() {
            var commands: [CurlEventLoop.Command] = []
            while true {
                let isShuttingDown = inbox.withLock { inbox in
                    swap(&commands, &inbox.commands)
                    return inbox.isShuttingDown
                }
                for command in commands {
                    switch command {
                    case .start(let call, let job):
                        start(call, job, refused: isShuttingDown)
                    case .cancel(let call):
                        cancel(call)
                    case .cancelAll:
                        for call in transfersByCall.values.map(\.call) {
                            cancel(call)
                        }
                    }
                }
                commands.removeAll(keepingCapacity: true)
                if isShuttingDown {
                    break
                }
                performUntilNoneFinishes()
                // libcurl shortens the wait to its own next timer (a timeout, a connection to retry).
                _ = cfcurl_multi_poll(multi, transfersByCall.isEmpty ? 60_000 : 1_000)
            }
            tearDown()
        }

        /// Lets libcurl do the work that is ready and completes the transfers that finished, again until a turn
        /// finishes none.
        ///
        /// A transfer that ends wakes one that waits for a connection (more calls to a host than
        /// `maximumConnectionsPerHost`): libcurl moves it on and sets it a timer that expires at once. libcurl before
        /// 8.4.0 drops such a timer, at the end of `curl_multi_perform`, when it is less than a millisecond away
        /// (curl/curl#11937, "multi: fix small timeouts"): the transfer is left with neither a timer nor a socket, and
        /// at the end of a burst nothing woke the loop but its poll's 1 s timeout. Each turn of `curl_multi_perform`
        /// runs every transfer it holds, so a turn after each turn that finished one starts those. A turn that
        /// finishes none wakes a waiting transfer only when another one has just taken a connection, whose traffic
        /// wakes the loop again.
        private func performUntilNoneFinishes() {
            var finishedAny = true
            while finishedAny {
                finishedAny = false
                var running: Int32 = 0
                _ = cfcurl_multi_perform(multi, &running)
                var handle: OpaquePointer?
                var code: Int32 = 0
                while cfcurl_multi_next_done(multi, &handle, &code) == 1, let finished = handle {
                    finish(finished, code: code)
                    finishedAny = true
                }
            }
        }

        private func start(_ call: CurlCall, _ job: CurlJob, refused: Bool) {
            guard !refused, !call.isCancelled else {
                job.fail(FetchError.cancelled())
                return
            }
            guard let easy = idleHandles.popLast() ?? makeHandle() else {
                job.fail(
                    (CurlFailure.error(
                        for: Int32(CFCURLE_OUT_OF_MEMORY), detail: "curl_easy_init failed", url: job.request.url)))
                return
            }
            let transfer = CurlTransfer(call: call, job: job, easy: easy)
            do {
                try transfer.configure(options: options, library: library)
            } catch {
                recycle(transfer)
                job.fail(error)
                return
            }
            let status = cfcurl_multi_add_handle(multi, easy.handle)
            guard status == 0 else {
                recycle(transfer)
                let reason = String(cString: cfcurl_multi_strerror(status))
                job.fail(
                    (CurlFailure.error(
                        for: Int32(CFCURLE_OUT_OF_MEMORY), detail: "curl_multi_add_handle: \(reason)",
                        url: job.request.url)))
                return
            }
            transfersByCall[ObjectIdentifier(call)] = transfer
        }

        /// A new easy handle, counted in the inbox's ``CurlEventLoop/Inbox/handlesCreated``.
        private func makeHandle() -> CurlEasy? {
            let easy = CurlEasy()
            if easy != nil {
                inbox.withLock { $0.handlesCreated += 1 }
            }
            return easy
        }

        private func cancel(_ call: CurlCall) {
            guard let transfer = transfersByCall.removeValue(forKey: ObjectIdentifier(call)) else {
                return  // finished already, or never started (start saw the cancellation)
            }
            _ = cfcurl_multi_remove_handle(multi, transfer.easy.handle)
            recycle(transfer)
            transfer.job.fail(FetchError.cancelled())
        }

        private func finish(_ handle: OpaquePointer, code: Int32) {
            guard let transfer = CurlTransfer.of(handle), transfersByCall[ObjectIdentifier(transfer.call)] === transfer
            else {
                return
            }
            _ = cfcurl_multi_remove_handle(multi, handle)
            if transfer.preparesToResend(after: code), cfcurl_multi_add_handle(multi, handle) == 0 {
                return  // sent again, on another connection
            }
            transfersByCall.removeValue(forKey: ObjectIdentifier(transfer.call))
            let outcome = transfer.outcome(code: code)
            recycle(transfer)
            transfer.deliver(outcome)
        }

        /// Frees what the transfer allocated and returns its easy handle to the pool, reset.
        ///
        /// Always reset, even after a `GET` that set every option it used: libcurl keeps state of its own on the
        /// handle that only `curl_easy_reset` clears. Its count of requests sent again because a kept-alive connection
        /// died is one: without the reset, the fifth such retry in the handle's life failed a request with
        /// "Connection died, tried 5 times before giving up" (`aHandleUsedAgainCarriesNoneOfLibcurlsRetries`).
        private func recycle(_ transfer: CurlTransfer) {
            transfer.release()
            if idleHandles.count < Self.poolLimit {
                transfer.easy.reset()
                idleHandles.append(transfer.easy)
            }
        }

        /// Ends every transfer with ``FetchError/cancelled(request:)`` and frees every handle.
        private func tearDown() {
            let leftovers = inbox.withLock { inbox -> [CurlEventLoop.Command] in
                inbox.multi = nil
                defer { inbox.commands = [] }
                return inbox.commands
            }
            for case .start(_, let job) in leftovers {
                job.fail(FetchError.cancelled())
            }
            let transfers = transfersByCall.values
            transfersByCall = [:]
            for transfer in transfers {
                _ = cfcurl_multi_remove_handle(multi, transfer.easy.handle)
                transfer.release()
                transfer.job.fail(FetchError.cancelled())
            }
            idleHandles = []
            _ = cfcurl_multi_cleanup(multi)
        }
    }
#endif
