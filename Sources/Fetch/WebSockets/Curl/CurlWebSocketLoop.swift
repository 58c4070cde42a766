#if os(Linux)
    import CFetchCurl
    import Foundation
    import Glibc

    /// An easy handle whose WebSocket handshake is done, passed from the thread that connected it to the loop.
    ///
    /// `@unchecked Sendable`: the easy handle changes hands once, and the connecting thread never touches it after
    /// handing it over.
    struct CurlWebSocketHandover: @unchecked Sendable {
        /// The handshake request.
        let request: any Request
        /// The connected `CURLOPT_CONNECT_ONLY` handle.
        let easy: CurlEasy
        /// Its socket (`CURLINFO_ACTIVESOCKET`).
        let socket: Int32
        /// The largest message the channel accepts.
        let maximumMessageSize: Int
        /// The permessage-deflate agreement of the handshake, or nil when messages go uncompressed.
        let compression: PerMessageDeflate?
        /// The bytes that arrived after the response head: the start of the first frames.
        let bytesAfterHead: Data
        /// The messages read ahead of the channel's receives, which the channel takes without the loop.
        let readAhead = CurlWebSocketReadAhead()
    }

    /// The one thread, process-wide and started on first use, that owns every open WebSocket connection over
    /// libcurl: it polls their sockets (and an eventfd that wakes it for commands), reads, writes and ends them.
    ///
    /// `@unchecked Sendable`: `inbox` is behind its lock; `connections` is touched only by the loop's thread.
    final class CurlWebSocketLoop: @unchecked Sendable {
        /// The loop every libcurl WebSocket shares, or why it could not start.
        static let shared = Result { try CurlWebSocketLoop() }

        /// What other threads ask of the loop.
        private enum Work {
            /// Take over a handshaken connection.
            case adopt(UInt64, CurlWebSocketHandover)
            /// Run a channel's command.
            case run(UInt64, CurlWebSocketConnection.Command)
            /// Drop and forget the connection of a released channel.
            case release(UInt64)
        }

        /// Wakes the thread from poll(2) for new work.
        private let wakeup: WakeupPipe
        /// The work submitted and not yet done.
        private let inbox = Locked<[Work]>([])
        /// The last identifier handed out.
        private let nextIdentifier = Locked<UInt64>(0)
        /// The open (and ended but not yet released) connections, by their channel's identifier. Loop thread only.
        private var connections: [UInt64: CurlWebSocketConnection] = [:]

        private init() throws {
            wakeup = try WakeupPipe()  // open for the life of the process, as the thread is
            let thread = Thread { [self] in run() }
            thread.name = "Fetch WebSocket (libcurl)"
            thread.start()
        }

        /// A new identifier for a channel.
        func makeIdentifier() -> UInt64 {
            nextIdentifier.withLock { value in
                value &+= 1
                return value
            }
        }

        /// Takes over a connected handle, as the connection of channel `identifier`.
        func adopt(_ handover: CurlWebSocketHandover, as identifier: UInt64) {
            submit(.adopt(identifier, handover))
        }

        /// Runs `command` on the connection of channel `identifier`.
        func run(_ command: CurlWebSocketConnection.Command, on identifier: UInt64) {
            submit(.run(identifier, command))
        }

        /// Drops the connection of channel `identifier`, which was released, and forgets it.
        func release(_ identifier: UInt64) {
            submit(.release(identifier))
        }

        /// Queues `work`, and wakes the thread unless work already waits for it (it drains the pipe before it takes the
        /// inbox, so work added in between is taken in the same turn).
        private func submit(_ work: Work) {
            let wasIdle = inbox.withLock { inbox in
                inbox.append(work)
                return inbox.count == 1
            }
            if wasIdle {
                wakeup.signal()
            }
        }

        // MARK: - The loop's thread

        /// The thread's body: run the work, poll the sockets, serve what is ready, end what is due. Forever.
        private func run() {
            var descriptors: [pollfd] = []
            var polled: [CurlWebSocketConnection] = []
            while true {
                drainInbox()
                descriptors.removeAll(keepingCapacity: true)
                polled.removeAll(keepingCapacity: true)
                descriptors.append(pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0))
                var nearest: ContinuousClock.Instant?
                for connection in connections.values where !connection.hasEnded {
                    let events = connection.pollEvents
                    if events != 0 {
                        descriptors.append(pollfd(fd: connection.socket, events: events, revents: 0))
                        polled.append(connection)
                    }
                    if let deadline = connection.deadline {
                        nearest = min(nearest ?? deadline, deadline)
                    }
                }
                let timeout = nearest.map { Self.milliseconds(until: $0) } ?? -1
                let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
                if ready > 0 {
                    for (index, connection) in polled.enumerated() {
                        let revents = descriptors[index + 1].revents
                        if revents != 0 {
                            connection.socketIsReady(revents)
                        }
                    }
                }
                let now = ContinuousClock.now
                for connection in connections.values {
                    connection.checkDeadline(now: now)
                }
            }
        }

        /// Runs the work submitted since the last turn.
        private func drainInbox() {
            wakeup.drain()
            let work = inbox.withLock { work in
                defer { work.removeAll() }
                return work
            }
            for item in work {
                switch item {
                case .adopt(let identifier, let handover):
                    connections[identifier] = CurlWebSocketConnection(handover)
                case .run(let identifier, let command):
                    guard let connection = connections[identifier] else {
                        // Never adopted: the channel exists only once its connection is handed over, so this
                        // does not happen; answer rather than lose a completion.
                        Self.refuse(command)
                        continue
                    }
                    connection.run(command)
                case .release(let identifier):
                    connections.removeValue(forKey: identifier)?.release()
                }
            }
        }

        /// Answers a command for a connection the loop does not know.
        private static func refuse(_ command: CurlWebSocketConnection.Command) {
            let error = FetchError.cancelled()
            switch command {
            case .receive(let completion):
                completion(.failure(error))
            case .send(_, let completion), .ping(let completion):
                completion(error)
            case .measure(let report):
                report(0)
            case .close, .cancel, .resume:
                break
            }
        }

        /// Milliseconds from now to `deadline`, rounded up, at least 0.
        private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                return 0
            }
            let (seconds, attoseconds) = left.components
            return Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 3_600_000))
        }
    }
#endif
