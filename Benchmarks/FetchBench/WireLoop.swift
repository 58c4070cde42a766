import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The wire limit: a `wrk`-style loop of plain HTTP/1.1 GETs on kept-alive sockets, with blocking calls on the
/// calling thread and no HTTP library, no decoding and no thread hand-off. No client can go faster on this machine
/// against the same server, so its rate over `URLSession`'s is the highest ratio any client can reach in a run.
final class WireLoop {
    private let sockets: [Int32]
    private let request: [UInt8]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Opens `connections` connections to `url`'s host and port (an `http` URL on an IPv4 loopback address).
    init(url: URL, connections: Int) throws {
        guard url.scheme == "http", let host = url.host, let address = Self.address(host, url.port ?? 80) else {
            throw LoopbackServerError("the wire loop needs http://127.x.y.z:port/…, not \(url.absoluteString)")
        }
        var sockets: [Int32] = []
        for _ in 0..<connections {
            #if canImport(Darwin)
                let socket = socket(AF_INET, SOCK_STREAM, 0)
            #else
                let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #endif
            var target = address
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard socket >= 0, connected == 0 else {
                let reason = String(cString: strerror(errno))
                for socket in sockets {
                    close(socket)
                }
                throw LoopbackServerError("the wire loop could not connect to \(url.absoluteString): \(reason)")
            }
            var noDelay: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            sockets.append(socket)
        }
        self.sockets = sockets
        let path = url.path.isEmpty ? "/" : url.path
        request = Array("GET \(path) HTTP/1.1\r\nHost: \(host):\(url.port ?? 80)\r\nAccept: */*\r\n\r\n".utf8)
    }

    deinit {
        for socket in sockets {
            close(socket)
        }
    }

    /// Requests per second, `requests` of them one after the other on the first connection; 0 when one fails.
    func sequentialRate(requests: Int) -> Double {
        let start = now()
        for _ in 0..<requests {
            guard sendRequest(on: sockets[0]), readResponse(on: sockets[0]) else {
                return 0
            }
        }
        return Double(requests) / (Double(now() - start) / 1e9)
    }

    /// Requests per second in `waves` waves of one request on each connection: all sent, then all read.
    func waveRate(waves: Int) -> Double {
        let start = now()
        for _ in 0..<waves {
            for socket in sockets {
                guard sendRequest(on: socket) else {
                    return 0
                }
            }
            for socket in sockets {
                guard readResponse(on: socket) else {
                    return 0
                }
            }
        }
        return Double(waves * sockets.count) / (Double(now() - start) / 1e9)
    }

    private func sendRequest(on socket: Int32) -> Bool {
        request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) } == request.count
    }

    /// Reads one response: the head up to its blank line, then `Content-Length` bytes of body.
    private func readResponse(on socket: Int32) -> Bool {
        var received = 0
        var bodyStart: Int?
        var length = 0
        while true {
            let count = buffer.withUnsafeMutableBytes {
                recv(socket, $0.baseAddress.map { $0 + received }, $0.count - received, 0)
            }
            guard count > 0 else {
                return false
            }
            received += count
            if bodyStart == nil, let end = Self.headEnd(in: buffer, upTo: received) {
                bodyStart = end + 4
                length = Self.contentLength(in: buffer[0..<end]) ?? 0
            }
            if let bodyStart, received >= bodyStart + length {
                return true
            }
            guard received < buffer.count else {
                return false  // larger than the wire loop reads; it is meant for small payloads
            }
        }
    }

    private static func headEnd(in bytes: [UInt8], upTo count: Int) -> Int? {
        guard count >= 4 else {
            return nil
        }
        for index in 0...(count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func contentLength(in head: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: head, as: UTF8.self)
        for line in text.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }

    private static func address(_ host: String, _ port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            return nil
        }
        return address
    }
}
