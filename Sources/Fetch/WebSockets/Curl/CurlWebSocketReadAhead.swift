#if os(Linux)
    import Foundation

    /// The messages a libcurl WebSocket has read ahead of its receives, shared by the loop's thread (which adds
    /// them) and the channel (which takes them): a receive with a message waiting completes at once, on the caller's
    /// thread, with no trip to the loop.
    ///
    /// Bounded: the loop reads ahead only while fewer than ``messageLimit`` messages and ``byteLimit`` bytes wait (one
    /// message of any size up to the maximum when none does), so a consumer that falls behind holds the server back
    /// through TCP, and memory stays within one maximum message plus ``byteLimit``.
    final class CurlWebSocketReadAhead: Sendable {
        /// The most messages read ahead: what the Python `websockets` client keeps by default, too.
        static let messageLimit = 16

        /// The most bytes of messages read ahead, beyond the first.
        static let byteLimit = 256 * 1024

        private struct Waiting {
            var messages: [WebSocketMessage] = []
            /// The index of the oldest message in `messages`.
            var head = 0
            var bytes = 0

            var count: Int { messages.count - head }

            var hasRoom: Bool {
                count == 0 || (count < CurlWebSocketReadAhead.messageLimit && bytes < CurlWebSocketReadAhead.byteLimit)
            }
        }

        private let waiting = Locked(Waiting())

        /// Whether the loop may read another message ahead.
        var hasRoom: Bool {
            waiting.withLock { $0.hasRoom }
        }

        /// Whether no message waits.
        var isEmpty: Bool {
            waiting.withLock { $0.count == 0 }
        }

        /// Keeps `message` for a later receive (the loop's thread).
        func append(_ message: WebSocketMessage) {
            let size = message.byteCount
            waiting.withLock { waiting in
                waiting.messages.append(message)
                waiting.bytes += size
            }
        }

        /// The oldest message, and whether reading had stopped for want of room before it was taken (so that the
        /// loop must be told to read again); `nil` when none waits.
        func take() -> (message: WebSocketMessage, freedRoom: Bool)? {
            waiting.withLock { waiting in
                guard waiting.count > 0 else {
                    return nil
                }
                let wasFull = !waiting.hasRoom
                let message = waiting.messages[waiting.head]
                waiting.head += 1
                waiting.bytes -= message.byteCount
                if waiting.head == waiting.messages.count {
                    waiting.messages.removeAll(keepingCapacity: true)
                    waiting.head = 0
                } else if waiting.head >= 64 {
                    waiting.messages.removeFirst(waiting.head)
                    waiting.head = 0
                }
                return (message, wasFull)
            }
        }

        /// Drops every waiting message: the connection was cancelled.
        func removeAll() {
            waiting.withLock { $0 = Waiting() }
        }
    }

    extension WebSocketMessage {
        /// The payload's length in bytes, without copying it.
        var byteCount: Int {
            switch self {
            case .text(let text):
                text.utf8.count
            case .binary(let data):
                data.count
            }
        }
    }
#endif
