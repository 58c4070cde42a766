import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that `fetch-bench` starts when no `--server` is given, so that a plain run
/// still compares both sides over a real loopback connection (libcurl, sockets, keep-alive), not only in-process.
///
/// It answers every request with a canned response shaped like nginx's (the same eight header fields): the 1 KB
/// payload, `/item-1` (one item), `/items-1m`, or `/cacheable` with `Cache-Control: max-age=3600`. Each connection gets a thread that reads requests
/// and writes answers with blocking calls; the machine's `URLSession` is far slower than this loop, so the server is
/// not what the rows measure.
final class LoopbackServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are set once in `init`; threads only read them.

    /// The URL of the 1 KB payload on this server.
    let url: URL

    private let listener: Int32

    /// Starts the server on an ephemeral port of 127.0.0.1.
    init() throws {
        #if canImport(Darwin)
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard listener >= 0 else {
            throw LoopbackServerError("socket() failed: \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw LoopbackServerError("could not listen on 127.0.0.1: \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let port = UInt16(bigEndian: address.sin_port)
        guard named == 0, let url = URL(string: "http://127.0.0.1:\(port)/items-1k") else {
            close(listener)
            throw LoopbackServerError("could not read the port the server listens on")
        }
        self.listener = listener
        self.url = url
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
            var noDelay: Int32 = 1
            setsockopt(
                connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
                // Darwin has no MSG_NOSIGNAL: the socket itself is told not to raise SIGPIPE when the client has
                // gone, so that send() fails with EPIPE instead of killing the benchmark.
                var noSigPipe: Int32 = 1
                setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
            #endif
            Thread.detachNewThread { Self.serve(connection) }
        }
    }

    /// Answers the requests of one connection until the client closes it.
    private static func serve(_ connection: Int32) {
        defer { close(connection) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                return
            }
            pending.append(contentsOf: buffer[0..<count])
            // Answer every complete request in what has arrived (the requests have no body).
            while let end = headerEnd(in: pending) {
                let answer = response(forRequestLine: pending[..<end])
                pending.removeFirst(end + 4)
                guard sendAll(answer, to: connection) else {
                    return
                }
            }
        }
    }

    /// The index of the `\r\n\r\n` that ends the first request's header, if it has arrived.
    private static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else {
            return nil
        }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static let itemsAnswer = makeAnswer(extraHeader: nil)
    private static let largeItemsAnswer = makeAnswer(body: Payload.large, extraHeader: nil)
    private static let oneItemAnswer = makeAnswer(body: Payload.one, extraHeader: nil)
    private static let cacheableAnswer = makeAnswer(extraHeader: "Cache-Control: max-age=3600\r\n")
    private static let notFoundAnswer = Array(
        "HTTP/1.1 404 Not Found\r\nServer: fetch-bench\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n".utf8)

    /// The answer to a request, from its request line (`GET /items-1k HTTP/1.1`).
    private static func response(forRequestLine head: ArraySlice<UInt8>) -> [UInt8] {
        let line = head.prefix { $0 != 13 }
        let parts = line.split(separator: UInt8(ascii: " "))
        guard parts.count >= 2 else {
            return notFoundAnswer
        }
        switch String(decoding: parts[1], as: UTF8.self) {
        case "/items-1k": return itemsAnswer
        case "/items-1m": return largeItemsAnswer
        case "/item-1": return oneItemAnswer
        case "/cacheable": return cacheableAnswer
        default: return notFoundAnswer
        }
    }

    /// A 200 answer carrying `body` (the 1 KB payload by default), with the header fields nginx sends for a static
    /// file.
    private static func makeAnswer(body: Data = Payload.small, extraHeader: String?) -> [UInt8] {
        // The Date is when the server started: a cache computes a response's age from it, and a run lasts minutes.
        let fields = StaticFileHeaders.fields(contentLength: body.count, date: Date())
        let head =
            "HTTP/1.1 200 OK\r\n" + fields.map { "\($0.name): \($0.value)\r\n" }.joined() + (extraHeader ?? "") + "\r\n"
        return Array(head.utf8) + Array(body)
    }

    // A client that has gone makes send() fail with EPIPE rather than kill the process with SIGPIPE: MSG_NOSIGNAL
    // where it exists, SO_NOSIGPIPE on each accepted socket on Darwin (see `acceptConnections`).
    #if canImport(Darwin)
        private static let noSignal: Int32 = 0
    #else
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #endif

    /// Writes all of `bytes`; returns `false` when the connection has gone.
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

/// Why the loopback server could not start.
struct LoopbackServerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
