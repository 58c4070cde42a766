#if os(Linux)
    import CFetchCurl
    import Foundation

    /// The thread of a ``CurlTransport`` that drives libcurl's multi handle, and the inbox through which other
    /// threads reach it.
    ///
    /// Only the loop thread touches the multi handle and the easy handles; other threads append a command to the inbox
    /// and, when the inbox was empty, wake the loop with `curl_multi_wakeup` (which libcurl allows from any thread).
    /// The wakeup happens under the inbox's lock, and the loop clears the inbox's multi handle under the same lock
    /// before it frees the handle, so no thread wakes a freed handle.
    final class CurlEventLoop: Sendable {
        /// What other threads ask of the loop.
        enum Command {
            case start(CurlCall, CurlJob)
            case cancel(CurlCall)
            /// Cancels every request started before it.
            case cancelAll
        }

        /// The state shared with other threads, behind the inbox's lock.
        struct Inbox {
            var commands: [Command] = []
            /// The multi handle, while the loop runs; `nil` once it has stopped.
            var multi: OpaquePointer?
            var isShuttingDown = false
            /// How many easy handles the loop has created: as many as calls ran at once, while its pool keeps them.
            var handlesCreated = 0
        }

        private let inbox: Locked<Inbox>

        /// Creates the multi handle and starts the loop's thread.
        init(options: CurlTransport.Options, library: CurlLibrary) throws {
            guard let multi = cfcurl_multi_init() else {
                throw CurlTransportError("curl_multi_init failed: libcurl could not create a multi handle")
            }
            _ = cfcurl_multi_setopt_long(
                multi, Int32(CFCURLMOPT_MAX_HOST_CONNECTIONS), options.maximumConnectionsPerHost)
            _ = cfcurl_multi_setopt_long(multi, Int32(CFCURLMOPT_PIPELINING), Int(CFCURLPIPE_MULTIPLEX))
            let inbox = Locked(Inbox(multi: multi))
            self.inbox = inbox
            let thread = Thread {
                CurlLoopWorker(inbox: inbox, options: options, library: library).run()
            }
            thread.name = "Fetch.CurlTransport"
            thread.start()
        }

        /// How many easy handles the loop has created so far.
        var handlesCreated: Int {
            inbox.withLock { $0.handlesCreated }
        }

        /// Hands `job` to the loop.
        func start(_ call: CurlCall, _ job: CurlJob) {
            if !post(.start(call, job)) {
                job.fail(FetchError.cancelled())
            }
        }

        /// Asks the loop to stop `call`, whether it has started or not.
        func cancel(_ call: CurlCall) {
            _ = post(.cancel(call))
        }

        /// Cancels every request handed to the loop so far: each ends with ``FetchError/cancelled(request:)``.
        func cancelAll() {
            _ = post(.cancelAll)
        }

        /// Stops the loop: requests in flight end with ``FetchError/cancelled(request:)``, and every handle is freed.
        func shutDown() {
            inbox.withLock { inbox in
                inbox.isShuttingDown = true
                if let multi = inbox.multi {
                    _ = cfcurl_multi_wakeup(multi)
                }
            }
        }

        /// Appends `command` to the inbox; `false` when the loop has stopped.
        private func post(_ command: Command) -> Bool {
            inbox.withLock { inbox in
                guard let multi = inbox.multi, !inbox.isShuttingDown else {
                    return false
                }
                inbox.commands.append(command)
                if inbox.commands.count == 1 {
                    // The loop drains the whole inbox at once: one wakeup is enough until it has.
                    _ = cfcurl_multi_wakeup(multi)
                }
                return true
            }
        }
    }
#endif
