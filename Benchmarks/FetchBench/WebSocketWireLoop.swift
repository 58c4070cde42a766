import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The WebSocket wire limit: one connection, the opening handshake done once, then pre-built masked frames written
/// with blocking calls on the calling thread, and the server's frames read with no parsing beyond their length. No
/// client can go faster over this machine's loopback against the same server.
final class WebSocketWireLoop {
    private let socket: Int32
    private var reader: SocketReader
    private let message: [UInt8]

    /// Opens `url` (a `ws://127.x.y.z:port/…` URL) and prepares `payload` as one masked text frame.
    init(url: URL, payload: [UInt8]) throws {
        guard url.scheme == "ws", let host = url.host, let port = url.port else {
            throw LoopbackServerError("the WebSocket wire loop needs ws://127.x.y.z:port/…, not \(url.absoluteString)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(clamping: port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw LoopbackServerError("the WebSocket wire loop needs an IPv4 address, not \(host)")
        }
        #if canImport(Darwin)
            let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #else
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard socket >= 0, connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw LoopbackServerError("the WebSocket wire loop could not connect to \(url.absoluteString): \(reason)")
        }
        WebSocketFraming.configure(socket)
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let handshake =
            "GET \(url.path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        var reader = SocketReader(socket: socket)
        guard WebSocketFraming.sendAll(Array(handshake.utf8), to: socket), let head = reader.readHead() else {
            close(socket)
            throw LoopbackServerError(
                "the WebSocket wire loop got no answer to its handshake from \(url.absoluteString)")
        }
        guard head.hasPrefix("HTTP/1.1 101"), head.contains(WebSocketFraming.accept(forKey: key)) else {
            close(socket)
            throw LoopbackServerError(
                "the WebSocket wire loop's handshake to \(url.absoluteString) was refused: \(head.prefix(200))")
        }
        self.socket = socket
        self.reader = reader
        self.message = WebSocketFraming.frame(opcode: 1, payload: payload, mask: [0x37, 0xFA, 0x21, 0x3D])
    }

    deinit {
        close(socket)
    }

    /// Sends the prepared frame `count` times, reading each echo before the next; `false` when the connection failed.
    func echo(_ count: Int) -> Bool {
        for _ in 0..<count {
            guard WebSocketFraming.sendAll(message, to: socket), skipFrame() else {
                return false
            }
        }
        return true
    }

    /// Asks a `/flood/<bytes>` server for `count` messages and reads them; `false` when the connection failed.
    func flood(_ count: Int) -> Bool {
        let request = WebSocketFraming.frame(opcode: 1, payload: Array(String(count).utf8), mask: [1, 2, 3, 4])
        guard WebSocketFraming.sendAll(request, to: socket) else {
            return false
        }
        for _ in 0..<count {
            guard skipFrame() else {
                return false
            }
        }
        return true
    }

    /// Reads one frame's head and skips its payload.
    private func skipFrame() -> Bool {
        guard let head = reader.readFrameHead() else {
            return false
        }
        return reader.skip(head.length)
    }
}
