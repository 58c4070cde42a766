import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// fetch-bench's WebSocket server on 127.0.0.1: the server side of RFC 6455 in its barest form (one thread that polls
/// its connections, blocking calls within a frame, one read buffer per connection), so that it answers faster than
/// any client it serves, and every connection of a row is served by the same thread.
///
/// - `/echo` sends each of the client's frames back unmasked, with the same opcode and FIN bit.
/// - `/flood/<bytes>` answers a text message holding a count (decimal, at most 10,000,000) with that many text
///   messages of `<bytes>` bytes (at most 1 MiB), written in batches of about 64 KiB: the one-way rows.
///
/// A ping is answered with a pong, a close with a close carrying the same code, and then the connection is closed.
final class WebSocketServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are set once in `init`; the serving thread only reads them.

    /// The server's port on 127.0.0.1.
    let port: UInt16

    private let listener: Int32

    /// Starts the server on an ephemeral port of 127.0.0.1.
    init() throws {
        #if canImport(Darwin)
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard listener >= 0 else {
            throw LoopbackServerError("WebSocket server: socket() failed: \(String(cString: strerror(errno)))")
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
            throw LoopbackServerError("WebSocket server: could not listen on 127.0.0.1: \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard named == 0 else {
            close(listener)
            throw LoopbackServerError("WebSocket server: could not read the port it listens on")
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in serveConnections() }
    }

    /// The `ws` URL of `path` on this server.
    func url(_ path: String) -> URL {
        // A literal host, a port and a path of fetch-bench's own: always a valid URL.
        URL(string: "ws://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Every connection on one thread: `poll` over the listener and the open connections, then one frame of a ready
    /// connection at a time (and every frame it has already buffered). The rows use one connection at a time; with a
    /// thread per connection, the two sides of a row differed by where the scheduler had put each server thread (the
    /// wire loop against itself read 0.2x to 5x on a loaded machine).
    private func serveConnections() {
        var connections: [Int32: Connection] = [:]
        while true {
            var polled = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            polled += connections.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 else {
                if errno == EINTR {
                    continue
                }
                return
            }
            for entry in polled where entry.revents != 0 {
                if entry.fd == listener {
                    let socket = accept(listener, nil, nil)
                    guard socket >= 0 else {
                        continue
                    }
                    WebSocketFraming.configure(socket)
                    if let connection = Connection(socket: socket) {
                        connections[socket] = connection
                    } else {
                        close(socket)
                    }
                } else if let connection = connections[entry.fd] {
                    var isOpen = true
                    repeat {
                        isOpen = connection.serveFrame()
                    } while isOpen && connection.hasBuffered
                    if !isOpen {
                        close(entry.fd)
                        connections[entry.fd] = nil
                    }
                }
            }
        }
    }

    /// One client's connection: its read buffer, and what its path asks for.
    private final class Connection {
        let socket: Int32
        private var reader: SocketReader
        /// The messages of a `/flood/<bytes>` connection; `nil` for `/echo`.
        private let flood: FloodBatch?
        /// Where an answer frame is built: head first, then the unmasked payload after it.
        private var payload = [UInt8](repeating: 0, count: 64 * 1024)

        /// Reads the opening handshake and answers it; `nil` when it is not one for `/echo` or `/flood/<bytes>`
        /// (answered 404).
        init?(socket: Int32) {
            self.socket = socket
            var reader = SocketReader(socket: socket)
            guard let head = reader.readHead() else {
                return nil
            }
            let lines = head.split(separator: "\r\n")
            let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            let key = lines.dropFirst().lazy.compactMap { line -> String? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "sec-websocket-key" else {
                    return nil
                }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }.first
            guard let key, path == "/echo" || WebSocketServer.floodSize(path) != nil else {
                _ = WebSocketFraming.sendAll(
                    Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), to: socket)
                return nil
            }
            let answer =
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(WebSocketFraming.accept(forKey: key))\r\n\r\n"
            guard WebSocketFraming.sendAll(Array(answer.utf8), to: socket) else {
                return nil
            }
            self.reader = reader
            self.flood = WebSocketServer.floodSize(path).map { size in
                FloodBatch(frame: WebSocketFraming.frame(opcode: 1, payload: [UInt8](repeating: 0x78, count: size)))
            }
        }

        /// Whether frames the client sent are already in the read buffer.
        var hasBuffered: Bool {
            reader.hasBuffered
        }

        /// Reads one frame and answers it; `false` when the connection is over (closed, broken, or a close frame).
        func serveFrame() -> Bool {
            guard let frame = reader.readFrameHead() else {
                return false
            }
            if payload.count < frame.length + 14 {
                payload = [UInt8](repeating: 0, count: frame.length + 14)
            }
            let headLength = frame.length < 126 ? 2 : frame.length < 65536 ? 4 : 10
            guard let body = WebSocketServer.readPayload(frame, &reader, into: &payload, at: headLength) else {
                return false
            }
            switch frame.opcode {
            case 8:
                // The close handshake: the same code back (or none), then the connection ends.
                let code = Array(payload[headLength..<(headLength + min(2, body))])
                _ = WebSocketFraming.sendAll(WebSocketFraming.frame(opcode: 8, payload: code), to: socket)
                return false
            case 9:
                let pong = WebSocketFraming.frame(opcode: 10, payload: Array(payload[headLength..<(headLength + body)]))
                return WebSocketFraming.sendAll(pong, to: socket)
            case 10:
                return true
            default:
                if let flood {
                    let text = String(decoding: payload[headLength..<(headLength + body)], as: UTF8.self)
                    guard let count = Int(text), count >= 0 else {
                        return false
                    }
                    return flood.send(min(count, 10_000_000), to: socket)
                }
                WebSocketServer.writeHead(isFinal: frame.isFinal, opcode: frame.opcode, length: body, into: &payload)
                return payload.withUnsafeBytes {
                    WebSocketFraming.sendAll(UnsafeRawBufferPointer(rebasing: $0[0..<(headLength + body)]), to: socket)
                }
            }
        }
    }

    /// Reads `frame`'s payload into `buffer` at `offset`, unmasked; its length, or `nil` when the connection ended.
    fileprivate static func readPayload(
        _ frame: WebSocketFraming.Head, _ reader: inout SocketReader, into buffer: inout [UInt8], at offset: Int
    ) -> Int? {
        var copied = 0
        while copied < frame.length {
            let step = min(frame.length - copied, 64 * 1024)
            let at = offset + copied
            let maskPhase = copied % 4
            let consumed = buffer.withUnsafeMutableBufferPointer { target in
                reader.consume(step) { bytes in
                    if let mask = frame.mask {
                        for index in 0..<bytes.count {
                            target[at + index] = bytes[index] ^ mask[(maskPhase + index) & 3]
                        }
                    } else {
                        for index in 0..<bytes.count {
                            target[at + index] = bytes[index]
                        }
                    }
                }
            }
            guard consumed else {
                return nil
            }
            copied += step
        }
        return frame.length
    }

    /// Writes an unmasked frame head for `length` bytes at the start of `buffer` (2, 4 or 10 bytes).
    fileprivate static func writeHead(isFinal: Bool, opcode: UInt8, length: Int, into buffer: inout [UInt8]) {
        buffer[0] = (isFinal ? 0x80 : 0) | opcode
        if length < 126 {
            buffer[1] = UInt8(length)
        } else if length < 65536 {
            buffer[1] = 126
            buffer[2] = UInt8(length >> 8)
            buffer[3] = UInt8(length & 0xFF)
        } else {
            buffer[1] = 127
            for index in 0..<8 {
                buffer[2 + index] = UInt8(truncatingIfNeeded: UInt64(length) >> ((7 - index) * 8))
            }
        }
    }

    /// The message size of a `/flood/<bytes>` path, at most 1 MiB; `nil` for any other path.
    static func floodSize(_ path: String) -> Int? {
        guard path.hasPrefix("/flood/"), let size = Int(path.dropFirst("/flood/".count)), size >= 0,
            size <= WebSocketFraming.maximumPayload
        else {
            return nil
        }
        return size
    }

    /// The same text frame, repeated into a batch of about 64 KiB so that a flood costs one `send` per batch.
    fileprivate struct FloodBatch {
        let frame: [UInt8]
        let framesPerBatch: Int
        let batch: [UInt8]

        init(frame: [UInt8]) {
            self.frame = frame
            framesPerBatch = max(1, 64 * 1024 / frame.count)
            batch = Array([[UInt8]](repeating: frame, count: framesPerBatch).joined())
        }

        /// Sends `count` frames; `false` when the connection has gone.
        func send(_ count: Int, to connection: Int32) -> Bool {
            var left = count
            while left > 0 {
                let frames = min(left, framesPerBatch)
                let sent = batch.withUnsafeBytes {
                    WebSocketFraming.sendAll(
                        UnsafeRawBufferPointer(rebasing: $0[0..<(frames * frame.count)]), to: connection)
                }
                guard sent else {
                    return false
                }
                left -= frames
            }
            return true
        }
    }
}
