import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// fetch-bench's WebSocket server on 127.0.0.1: the server side of RFC 6455 in its barest form (a thread per
/// connection, blocking calls, one read buffer), so that it answers faster than any client it serves.
///
/// - `/echo` sends each of the client's frames back unmasked, with the same opcode and FIN bit.
/// - `/flood/<bytes>` answers a text message holding a count (decimal, at most 10,000,000) with that many text
///   messages of `<bytes>` bytes (at most 1 MiB), written in batches of about 64 KiB: the one-way rows.
///
/// A ping is answered with a pong, a close with a close carrying the same code, and then the connection is closed.
final class WebSocketServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are set once in `init`; threads only read them.

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
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// The `ws` URL of `path` on this server.
    func url(_ path: String) -> URL {
        // A literal host, a port and a path of fetch-bench's own: always a valid URL.
        URL(string: "ws://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
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
            WebSocketFraming.configure(connection)
            Thread.detachNewThread { Self.serve(connection) }
        }
    }

    /// The opening handshake, then frames until the client closes.
    private static func serve(_ connection: Int32) {
        defer { close(connection) }
        var reader = SocketReader(socket: connection)
        guard let head = reader.readHead() else {
            return
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
        guard let key, path == "/echo" || floodSize(path) != nil else {
            _ = WebSocketFraming.sendAll(
                Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), to: connection)
            return
        }
        let answer =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketFraming.accept(forKey: key))\r\n\r\n"
        guard WebSocketFraming.sendAll(Array(answer.utf8), to: connection) else {
            return
        }
        let flood = floodSize(path).map { size in
            FloodBatch(frame: WebSocketFraming.frame(opcode: 1, payload: [UInt8](repeating: 0x78, count: size)))
        }
        var payload = [UInt8](repeating: 0, count: 64 * 1024)
        while let frame = reader.readFrameHead() {
            if payload.count < frame.length + 14 {
                payload = [UInt8](repeating: 0, count: frame.length + 14)
            }
            // The answer frame is built in place: head first, then the unmasked payload after it.
            let headLength = frame.length < 126 ? 2 : frame.length < 65536 ? 4 : 10
            guard let body = readPayload(frame, &reader, into: &payload, at: headLength) else {
                return
            }
            switch frame.opcode {
            case 8:
                // The close handshake: the same code back (or none), then the connection ends.
                let code = Array(payload[headLength..<(headLength + min(2, body))])
                _ = WebSocketFraming.sendAll(WebSocketFraming.frame(opcode: 8, payload: code), to: connection)
                return
            case 9:
                let pong = WebSocketFraming.frame(opcode: 10, payload: Array(payload[headLength..<(headLength + body)]))
                guard WebSocketFraming.sendAll(pong, to: connection) else {
                    return
                }
            case 10:
                continue
            default:
                if let flood {
                    let text = String(decoding: payload[headLength..<(headLength + body)], as: UTF8.self)
                    guard let count = Int(text), count >= 0, flood.send(min(count, 10_000_000), to: connection)
                    else {
                        return
                    }
                } else {
                    writeHead(isFinal: frame.isFinal, opcode: frame.opcode, length: body, into: &payload)
                    let sent = payload.withUnsafeBytes {
                        WebSocketFraming.sendAll(
                            UnsafeRawBufferPointer(rebasing: $0[0..<(headLength + body)]), to: connection)
                    }
                    guard sent else {
                        return
                    }
                }
            }
        }
    }

    /// Reads `frame`'s payload into `buffer` at `offset`, unmasked; its length, or `nil` when the connection ended.
    private static func readPayload(
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
    private static func writeHead(isFinal: Bool, opcode: UInt8, length: Int, into buffer: inout [UInt8]) {
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
    private struct FloodBatch {
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
