import Fetch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server on 127.0.0.1 for the resume row and, never dropping, the streaming rows: one resource of `size` bytes
/// with an `ETag` and `Accept-Ranges: bytes`, that honours `Range: bytes=N-` (with `If-Range`), and closes every
/// connection after `dropEvery` body bytes. It counts the body bytes it sends. One request per connection
/// (`Connection: close`), handled on a thread of its own.
final class DroppingServer: @unchecked Sendable {
    // @unchecked Sendable: `listener`, `url`, `size` and `dropEvery` are set once in `init`; `sent` is a Locked.

    /// The URL of the resource.
    let url: URL
    let size: Int
    private let dropEvery: Int
    private let listener: Int32
    private let sentBytes = Locked(0)
    private static let entityTag = "\"fetch-bench-1\""

    /// The body bytes sent so far, over all connections.
    var sent: Int {
        sentBytes.withLock { $0 }
    }

    init(size: Int, dropEvery: Int) throws {
        #if canImport(Darwin)
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready =
            listener >= 0
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
            } == 0 && listen(listener, 16) == 0
            && withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            } == 0
        guard ready, let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/resumable") else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw LoopbackServerError("the dropping server could not listen on 127.0.0.1: \(reason)")
        }
        self.listener = listener
        self.url = url
        self.size = size
        self.dropEvery = dropEvery
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR {
                    continue
                }
                return
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    /// Reads one request's header, answers it, and closes the connection (early, after `dropEvery` bytes).
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                return
            }
            head.append(contentsOf: buffer[0..<count])
        }
        let fields = String(decoding: head, as: UTF8.self).lowercased().components(separatedBy: "\r\n")
        let range = fields.first { $0.hasPrefix("range: bytes=") }.flatMap { Int($0.dropFirst(13).dropLast()) }
        let ifRange = fields.first { $0.hasPrefix("if-range: ") }.map { String($0.dropFirst(10)) }
        let start = (ifRange == nil || ifRange == Self.entityTag) ? min(range ?? 0, size) : 0
        var answer =
            start > 0
            ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(start)-\(size - 1)/\(size)\r\n"
            : "HTTP/1.1 200 OK\r\n"
        answer += "Content-Length: \(size - start)\r\nETag: \(Self.entityTag)\r\nAccept-Ranges: bytes\r\n"
        answer += "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        guard Self.sendAll(Array(answer.utf8), to: connection) else {
            return
        }
        let chunk = [UInt8]((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var position = start
        let stop = min(size, start + dropEvery)
        while position < stop {
            let count = min(chunk.count, stop - position)
            guard Self.sendAll(Array(chunk[0..<count]), to: connection) else {
                return
            }
            position += count
            sentBytes.withLock { $0 += count }
        }
    }

    #if canImport(Darwin)
        private static let noSignal: Int32 = 0
    #else
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #endif

    private static func sendAll(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                send(connection, $0.baseAddress.map { $0 + offset }, bytes.count - offset, noSignal)
            }
            guard sent > 0 else {
                return false
            }
            offset += sent
        }
        return true
    }
}
