import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few pieces of RFC 6455 that fetch-bench's WebSocket server and its wire loop share: a buffered reader of a
/// socket, frame heads, and the opening handshake's accept value. Deliberately bare: the server and the wire loop
/// must cost as little as possible, so that neither is what limits a row.
enum WebSocketFraming {
    /// The GUID that RFC 6455 §1.3 appends to the client's key before hashing it.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The largest payload the server and the wire loop accept in one frame (the rows send at most 16 KiB).
    static let maximumPayload = 1 << 20

    /// `Sec-WebSocket-Accept` for `key`: base64 of the SHA-1 of the key and the GUID.
    static func accept(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + acceptGUID).utf8))).base64EncodedString()
    }

    /// One frame with `payload`, FIN set: unmasked (as a server sends it), or masked with `mask` (as a client must).
    static func frame(opcode: UInt8, payload: [UInt8], mask: [UInt8]? = nil) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        switch payload.count {
        case ..<126:
            bytes.append(maskBit | UInt8(payload.count))
        case ..<65536:
            bytes.append(maskBit | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> ($0 * 8)) }
        }
        if let mask {
            bytes += mask
            bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            bytes += payload
        }
        return bytes
    }

    /// The head of one frame: what the reader needs to find its payload.
    struct Head {
        var isFinal: Bool
        var opcode: UInt8
        var mask: [UInt8]?
        var length: Int
    }

    // A client or server that has gone makes send() fail with EPIPE rather than kill the process with SIGPIPE
    // (Darwin: SO_NOSIGPIPE on the socket, as `LoopbackServer` does).
    #if canImport(Darwin)
        static let noSignal: Int32 = 0
    #else
        static let noSignal = Int32(MSG_NOSIGNAL)
    #endif

    /// Writes all of `bytes` to `socket`; `false` when the connection has gone.
    static func sendAll(_ bytes: UnsafeRawBufferPointer, to socket: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = send(socket, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, noSignal)
            guard sent > 0 else {
                return false
            }
            offset += sent
        }
        return true
    }

    /// Writes all of `bytes` to `socket`; `false` when the connection has gone.
    static func sendAll(_ bytes: [UInt8], to socket: Int32) -> Bool {
        bytes.withUnsafeBytes { sendAll($0, to: socket) }
    }

    /// Sets `TCP_NODELAY` (frames go out as written) and, on Darwin, `SO_NOSIGPIPE`.
    static func configure(_ socket: Int32) {
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}

/// Reads a socket through one fixed buffer: bytes are taken from it in place, and it is refilled with one `recv` of
/// as much as fits.
struct SocketReader {
    private let socket: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0

    init(socket: Int32, capacity: Int = 256 * 1024) {
        self.socket = socket
        self.buffer = [UInt8](repeating: 0, count: capacity)
    }

    /// Makes `count` bytes available from the current position; `false` when the connection ends first, or when
    /// `count` is more than the buffer holds.
    private mutating func fill(_ count: Int) -> Bool {
        guard count <= buffer.count else {
            return false
        }
        if start + count > buffer.count {
            buffer.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else {
                    return
                }
                memmove(base, base + start, end - start)
            }
            end -= start
            start = 0
        }
        while end - start < count {
            let received = buffer.withUnsafeMutableBytes { bytes in
                recv(socket, bytes.baseAddress.map { $0 + end }, bytes.count - end, 0)
            }
            guard received > 0 else {
                return false
            }
            end += received
        }
        return true
    }

    /// Whether bytes are buffered that have not been read yet.
    var hasBuffered: Bool {
        end > start
    }

    /// The next `count` bytes, copied (an `ArraySlice` of the buffer would make the next refill copy all of it);
    /// `nil` when the connection ends first.
    mutating func read(_ count: Int) -> [UInt8]? {
        guard fill(count) else {
            return nil
        }
        defer { start += count }
        return Array(buffer[start..<(start + count)])
    }

    /// Hands the next `count` bytes (at most the buffer's capacity) to `body` in place; `false` when the connection
    /// ends first.
    mutating func consume(_ count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard fill(count) else {
            return false
        }
        let from = start
        buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[from..<(from + count)])) }
        start += count
        return true
    }

    /// Skips `count` bytes, without holding more than the buffer at a time; `false` when the connection ends first.
    mutating func skip(_ count: Int) -> Bool {
        var left = count
        while left > 0 {
            let step = min(left, buffer.count)
            guard fill(step) else {
                return false
            }
            start += step
            left -= step
        }
        return true
    }

    /// The bytes up to and including the first `\r\n\r\n`, within `limit` bytes; `nil` when there is none.
    mutating func readHead(limit: Int = 16 * 1024) -> String? {
        var scanned = 0
        while true {
            let available = end - start
            if available >= 4 {
                for index in max(0, scanned - 3)..<(available - 3) {
                    let at = start + index
                    if buffer[at] == 13, buffer[at + 1] == 10, buffer[at + 2] == 13, buffer[at + 3] == 10 {
                        let head = String(decoding: buffer[start..<(at + 4)], as: UTF8.self)
                        start = at + 4
                        return head
                    }
                }
                scanned = available
            }
            guard available < limit, fill(available + 1) else {
                return nil
            }
        }
    }

    /// The head of the next frame; `nil` when the connection ends first, or the frame is larger than
    /// ``WebSocketFraming/maximumPayload``.
    mutating func readFrameHead() -> WebSocketFraming.Head? {
        guard let first = read(2) else {
            return nil
        }
        let isFinal = first[0] & 0x80 != 0
        let opcode = first[0] & 0x0F
        let isMasked = first[1] & 0x80 != 0
        var length = Int(first[1] & 0x7F)
        if length >= 126 {
            guard let extended = read(length == 126 ? 2 : 8) else {
                return nil
            }
            // Checked: a length over the maximum ends the connection instead of growing a buffer or trapping.
            var value: UInt64 = 0
            for byte in extended {
                guard value <= UInt64(WebSocketFraming.maximumPayload) else {
                    return nil
                }
                value = value << 8 | UInt64(byte)
            }
            guard value <= UInt64(WebSocketFraming.maximumPayload) else {
                return nil
            }
            length = Int(value)
        }
        var mask: [UInt8]?
        if isMasked {
            guard let key = read(4) else {
                return nil
            }
            mask = key
        }
        return WebSocketFraming.Head(isFinal: isFinal, opcode: opcode, mask: mask, length: length)
    }
}

/// SHA-1 (FIPS 180-4), for the opening handshake's accept value only: fetch-bench has no dependency that offers it on
/// Linux. Not for anything that needs a secure hash.
enum SHA1 {
    /// The 20-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = message + [0x80]
        while padded.count % 64 != 56 {
            padded.append(0)
        }
        let bits = UInt64(message.count) &* 8
        padded += (0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) }
        var w = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = block + index * 4
                w[index] =
                    UInt32(padded[at]) << 24 | UInt32(padded[at + 1]) << 16 | UInt32(padded[at + 2]) << 8
                    | UInt32(padded[at + 3])
            }
            for index in 16..<80 {
                let mixed = w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]
                w[index] = mixed << 1 | mixed >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch index {
                    case ..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case ..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case ..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let next = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[index]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, next)
            }
            h[0] &+= a
            h[1] &+= b
            h[2] &+= c
            h[3] &+= d
            h[4] &+= e
        }
        return h.flatMap { word in (0..<4).reversed().map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) } }
    }
}
