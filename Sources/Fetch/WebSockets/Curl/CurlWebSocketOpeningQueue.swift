#if os(Linux)
    import Foundation

    /// The libcurl WebSocket openings waiting for their turn: one opening at a time per host and port, as RFC 6455
    /// §4.1 asks of a client ("if the client already has a WebSocket connection to the remote host … in the
    /// CONNECTING state, the client MUST wait until that connection has either been established or failed").
    ///
    /// So a server that accepts connections and never answers the handshake holds one thread and one connection of
    /// the process, whatever the number of openings the app asks of it; the others wait here, holding no thread and
    /// no descriptor, until the one before them opens, fails, times out or is cancelled. A waiting opening's own
    /// timeout runs from when it was asked, and ends it where it waits.
    ///
    /// `Sendable`: its state is behind `state`'s lock.
    final class CurlWebSocketOpeningQueue: Sendable {
        /// The queue of the process: every libcurl WebSocket shares it, as they share their loop.
        static let shared = CurlWebSocketOpeningQueue()

        private struct State {
            /// The hosts and ports with an opening on its way.
            var opening: Set<String> = []
            /// The openings waiting, by host and port, first asked first.
            var waiting: [String: [CurlWebSocketOpening]] = [:]
        }

        private let state = Locked(State())

        /// The key of `url`'s host and port (the scheme's default port when it names none), in lowercase.
        static func key(for url: URL?) -> String {
            let host = url?.host?.lowercased() ?? ""
            let secure = ["wss", "https"].contains(url?.scheme?.lowercased() ?? "")
            return host + ":" + String(url?.port ?? (secure ? 443 : 80))
        }

        /// Starts `opening` now if no other opening to `key` is on its way, or queues it behind those that are.
        func enqueue(_ opening: CurlWebSocketOpening, key: String) {
            let startsNow = state.withLock { state in
                guard state.opening.insert(key).inserted else {
                    state.waiting[key, default: []].append(opening)
                    return false
                }
                return true
            }
            if startsNow {
                opening.start()
            }
        }

        /// Takes `opening` out of the queue of `key`, if it is waiting there; returns whether it was.
        @discardableResult
        func remove(_ opening: CurlWebSocketOpening, key: String) -> Bool {
            state.withLock { state in
                guard let index = state.waiting[key]?.firstIndex(where: { $0 === opening }) else {
                    return false
                }
                state.waiting[key]?.remove(at: index)
                if state.waiting[key]?.isEmpty == true {
                    state.waiting[key] = nil
                }
                return true
            }
        }

        /// The opening on its way to `key` has ended: starts the next one waiting for it.
        func finished(key: String) {
            let next = state.withLock { state -> CurlWebSocketOpening? in
                guard var queue = state.waiting[key], !queue.isEmpty else {
                    state.opening.remove(key)
                    return nil
                }
                let next = queue.removeFirst()
                state.waiting[key] = queue.isEmpty ? nil : queue
                return next
            }
            next?.start()
        }

        /// The openings waiting for `key` now (for tests).
        func waitingCount(for key: String) -> Int {
            state.withLock { $0.waiting[key]?.count ?? 0 }
        }
    }
#endif
