import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection of the ``LiveDeskServer``: the server side of RFC 6455 framing over a blocking socket,
/// used by the one thread that serves it.
final class Connection {
    /// What a read of the client's next message found.
    enum Incoming {
        /// A whole text (opcode 1) or binary (opcode 2) message.
        case message(opcode: UInt8, payload: Data)
        /// The client's close frame.
        case close
        /// The client broke the protocol: the code and reason to close with.
        case failed(code: Int, reason: String)
        /// The connection ended, or the client stopped talking.
        case gone
    }

    private let descriptor: Int32
    /// Bytes read past what was asked for.
    private var pending = Data()

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    // MARK: - The handshake

    /// The opening handshake's head, up to its blank line, or `nil` when the client sent none within `limit` bytes.
    func readHead(limit: Int) -> String? {
        let end = Data("\r\n\r\n".utf8)
        while pending.range(of: end) == nil {
            guard pending.count < limit, fill() else {
                return nil
            }
        }
        guard let range = pending.range(of: end) else {
            return nil
        }
        let head = pending[..<range.lowerBound]
        pending = Data(pending[range.upperBound...])
        return String(decoding: head, as: UTF8.self)
    }

    /// Refuses the handshake with `status` and the API's error body, `{"error": true, "reason": …}`.
    func refuse(_ status: Int, _ reason: String) {
        let names = [400: "Bad Request", 401: "Unauthorized", 404: "Not Found"]
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: ["error": true, "reason": reason], options: .sortedKeys)
        } catch {
            body = Data(#"{"error":true,"reason":"refused"}"#.utf8)
        }
        writeText(
            "HTTP/1.1 \(status) \(names[status] ?? "Error")\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n")
        write(body)
    }

    /// Writes `text` as it is, for the handshake's answer.
    func writeText(_ text: String) {
        write(Data(text.utf8))
    }

    // MARK: - Frames

    /// Sends one unmasked frame (a server does not mask, RFC 6455 §5.1) with FIN set.
    func sendFrame(opcode: UInt8, payload: Data) {
        var frame = Data([0x80 | opcode])
        switch payload.count {
        case 0..<126:
            frame.append(UInt8(payload.count))
        case 126...0xFFFF:
            frame.append(126)
            frame.append(contentsOf: [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)])
        default:
            frame.append(127)
            let length = UInt64(payload.count)
            frame.append(contentsOf: (0..<8).map { UInt8(truncatingIfNeeded: length >> UInt64(56 - $0 * 8)) })
        }
        write(frame + payload)
    }

    /// Sends a close frame with `code` and `reason` (cut to the 123 bytes a control frame leaves).
    func sendClose(code: Int, reason: String) {
        let code = UInt16(clamping: code)
        sendFrame(opcode: 0x8, payload: Data([UInt8(code >> 8), UInt8(code & 0xFF)]) + Data(reason.utf8.prefix(123)))
    }

    /// After the server's close frame, reads until the client's answers it (or 2 s pass), as RFC 6455 §7.1.2 asks
    /// before the server closes the TCP connection.
    func awaitClose() {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while case .message = readMessage(limit: LiveDeskServer.maximumMessageSize) {}
    }

    /// Reads the client's next message, joining its fragments, answering pings and skipping pongs on the way.
    ///
    /// - Parameter limit: The largest message read; a larger one fails with 1009 before its payload is read.
    /// - Returns: The message, the client's close, how the client broke the protocol, or that it is gone.
    func readMessage(limit: Int) -> Incoming {
        var kind: UInt8?
        var message = Data()
        while true {
            guard let header = read(2) else {
                return .gone
            }
            let isFinal = header[0] & 0x80 != 0
            let opcode = header[0] & 0x0F
            guard header[0] & 0x70 == 0 else {
                return .failed(code: 1002, reason: "a frame had reserved bits set, and no extension was agreed")
            }
            guard header[1] & 0x80 != 0 else {
                return .failed(code: 1002, reason: "a client's frame must be masked")
            }
            var length = UInt64(header[1] & 0x7F)
            if length == 126 {
                guard let bytes = read(2) else {
                    return .gone
                }
                length = UInt64(bytes[0]) << 8 | UInt64(bytes[1])
            } else if length == 127 {
                guard let bytes = read(8) else {
                    return .gone
                }
                length = bytes.reduce(0) { $0 << 8 | UInt64($1) }
            }
            let isControl = opcode & 0x8 != 0
            guard !isControl || (isFinal && length <= 125) else {
                return .failed(code: 1002, reason: "a control frame must be whole and at most 125 bytes")
            }
            // Checked before any payload is read, and before the length is made an Int.
            guard length <= UInt64(max(0, limit - message.count)) else {
                return .failed(code: 1009, reason: "a message over \(limit) bytes")
            }
            guard let mask = read(4), let masked = read(Int(length)) else {
                return .gone
            }
            let payload = Data(masked.enumerated().map { $0.element ^ mask[mask.startIndex + $0.offset % 4] })
            switch opcode {
            case 0x8:
                return .close
            case 0x9:
                sendFrame(opcode: 0xA, payload: payload)
                continue
            case 0xA:
                continue
            case 0x1, 0x2:
                guard kind == nil else {
                    return .failed(code: 1002, reason: "a new message began before the last one's final fragment")
                }
                kind = opcode
                message = payload
            case 0x0:
                guard kind != nil else {
                    return .failed(code: 1002, reason: "a continuation frame with no message to continue")
                }
                message += payload
            default:
                return .failed(code: 1002, reason: "unknown opcode \(opcode)")
            }
            if isFinal, let kind {
                if kind == 0x1, String(data: message, encoding: .utf8) == nil {
                    return .failed(code: 1007, reason: "a text message that is not UTF-8")
                }
                return .message(opcode: kind, payload: message)
            }
        }
    }

    // MARK: - The socket

    /// The next `count` bytes, or `nil` when the connection ends first.
    private func read(_ count: Int) -> Data? {
        while pending.count < count {
            guard fill() else {
                return nil
            }
        }
        let bytes = Data(pending.prefix(count))
        pending = Data(pending.dropFirst(count))
        return bytes
    }

    /// Reads what has arrived into `pending`; `false` when the connection ended, failed or timed out.
    private func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard received > 0 else {
            return false
        }
        pending.append(contentsOf: buffer[..<received])
        return true
    }

    /// Writes all of `data`, or as much as the client takes before it goes.
    private func write(_ data: Data) {
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0  // SO_NOSIGPIPE is set on the socket
        #endif
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else {
                return
            }
            offset += sent
        }
    }
}
