#if os(Linux)
    import Foundation
    import Glibc

    /// A non-blocking pipe that wakes a thread waiting in poll(2): one end to ``signal()``, the other to poll for
    /// POLLIN and ``drain()``.
    struct WakeupPipe: Sendable {
        /// The end to poll.
        let readEnd: Int32
        /// The end ``signal()`` writes to.
        private let writeEnd: Int32

        /// Opens the pipe.
        ///
        /// - Throws: ``CurlTransportError`` naming errno when the process has no descriptors left.
        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                let reason = String(cString: strerror(errno))
                throw CurlTransportError("pipe(2) for a WebSocket's wakeup failed with errno \(errno) (\(reason))")
            }
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
            readEnd = ends[0]
            writeEnd = ends[1]
        }

        /// Wakes the poller; a pipe already holding a byte is awake enough (EAGAIN is fine).
        func signal() {
            var byte: UInt8 = 1
            _ = Glibc.write(writeEnd, &byte, 1)
        }

        /// Empties the pipe after a wakeup.
        func drain() {
            var bytes = [UInt8](repeating: 0, count: 64)
            while Glibc.read(readEnd, &bytes, bytes.count) > 0 {}
        }

        /// Closes both ends; only once, by the pipe's owner.
        func close() {
            _ = Glibc.close(readEnd)
            _ = Glibc.close(writeEnd)
        }
    }
#endif
