import Foundation

/// Reads the frames a server sends (RFC 6455 §5) from bytes appended as they arrive, and hands on whole messages and
/// control frames, enforcing the protocol as it goes.
///
/// A data frame's payload is moved into the message being assembled as its bytes arrive, and a text's UTF-8 is
/// checked there and then, so a violation is reported as soon as the bytes that make it have been appended, even in
/// the middle of a frame. A message's size is checked against ``maximumMessageSize`` from each frame's header, before
/// any of its payload is kept.
///
/// **Bound:** once ``next()`` has returned nil, the decoder holds at most ``maximumBufferedByteCount`` bytes
/// (``maximumMessageSize``, plus an incomplete frame header or a control frame whose payload has not all arrived);
/// in between, also whatever the caller appended beyond the current frame. Appending and decoding take time linear
/// in the bytes: they are consumed with an index, and the buffer is compacted only once the consumed part is at
/// least as large as what remains.
///
/// With permessage-deflate (RFC 7692) agreed, a message whose first frame has RSV1 set is compressed: its payload is
/// inflated as it arrives, and the limit, the bound and the UTF-8 check apply to the inflated bytes, so that a small
/// frame that would inflate past ``maximumMessageSize`` (a compression bomb) is a 1009 violation as soon as the
/// inflated bytes pass the limit, without inflating the rest. The inflater's own state (a 32 KiB window and zlib's
/// tables) comes on top of the bound.
///
/// After a violation the decoder is done: every later ``next()`` throws the same violation.
///
/// Not `Sendable`: its inflater is confined to the thread that decodes.
package struct WebSocketFrameDecoder {
    /// The longest incomplete frame the decoder waits on: a control frame (2-byte header, 125-byte payload), which
    /// it hands on whole; a data frame's header is at most 10 bytes, and its payload is never waited on.
    package static let maximumPendingFrameLength = 2 + 125

    /// The largest whole message (all its fragments) accepted.
    package let maximumMessageSize: Int

    /// The most bytes the decoder holds once ``next()`` has returned nil: ``maximumMessageSize`` plus
    /// ``maximumPendingFrameLength``.
    package var maximumBufferedByteCount: Int {
        let (sum, overflow) = maximumMessageSize.addingReportingOverflow(Self.maximumPendingFrameLength)
        return overflow ? .max : sum
    }

    /// The bytes appended; those before `readIndex` are consumed.
    private var input: [UInt8] = []
    private var readIndex = 0
    /// The payload of the message being assembled, so far.
    private var message: [UInt8] = []
    /// `.text` or `.binary` while a message is being assembled (between its first frame and its final one).
    private var openMessage: WebSocketOpcode?
    private var validator = UTF8Validator()
    /// Whether the payload of a data frame is being read: `payloadRemaining` bytes of it have not yet arrived.
    private var isInDataFrame = false
    private var payloadRemaining = 0
    private var frameIsFinal = false
    private var violation: WebSocketViolation?

    /// The permessage-deflate agreement, or nil when messages are never compressed.
    package let compression: PerMessageDeflate?
    /// Inflates compressed messages; made at the first one.
    private var inflater: Zlib.Inflater?
    /// Whether the message being assembled is compressed.
    private var isCompressed = false
    /// The compressed bytes of that message so far, against ``maximumCompressedMessageSize``.
    private var compressedCount = 0
    /// Whether that message's DEFLATE data held a final block: the rest of it is ignored.
    private var compressedStreamEnded = false

    /// A decoder at the start of a connection's frames.
    ///
    /// - Parameters:
    ///   - maximumMessageSize: The largest whole message (all fragments) accepted; a larger one is a 1009
    ///     violation. A negative value counts as 0.
    ///   - compression: The permessage-deflate agreement of the opening handshake, or nil (the default) when none
    ///     was made: a frame with RSV1 set is then a protocol error.
    package init(maximumMessageSize: Int, compression: PerMessageDeflate? = nil) {
        self.maximumMessageSize = max(0, maximumMessageSize)
        self.compression = compression
    }

    /// The most compressed bytes a compressed message may take on the wire: its payload is inflated as it arrives,
    /// so they are never held, but a stream of empty DEFLATE blocks must end too. DEFLATE's worst case adds 5 bytes
    /// per 16 KiB block; this allows an eighth more than ``maximumMessageSize``, plus 1 KiB.
    package var maximumCompressedMessageSize: Int {
        let (sum, overflow) = maximumMessageSize.addingReportingOverflow(maximumMessageSize / 8 + 1024)
        return overflow ? .max : sum
    }

    /// The bytes inflated so far, over the connection's life (what a compression bomb costs).
    package var inflatedByteCount: Int { inflater?.inflatedByteCount ?? 0 }

    /// How many bytes it holds, undecoded or in a message being assembled.
    package var bufferedByteCount: Int { input.count - readIndex + message.count }

    /// Appends bytes read from the server.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if readIndex == input.count {
            // Keeps up to 1 MiB of capacity for the next reads, so a steady stream of large reads reuses it.
            input.removeAll(keepingCapacity: input.capacity <= 1 << 20)
            readIndex = 0
        } else if readIndex >= 4096, readIndex >= input.count - readIndex {
            input.removeSubrange(..<readIndex)
            readIndex = 0
        }
        bytes.withMemoryRebound(to: UInt8.self) { input.append(contentsOf: $0) }
    }

    /// Appends bytes read from the server.
    package mutating func append(_ bytes: Data) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next message or control frame from the bytes appended so far.
    ///
    /// - Returns: The next message or control frame, or nil when more bytes are needed.
    /// - Throws: The violation, as soon as the bytes appended show one.
    package mutating func next() throws(WebSocketViolation) -> WebSocketInbound? {
        if let violation {
            throw violation
        }
        do {
            return try decode()
        } catch {
            violation = error
            throw error
        }
    }

    private mutating func decode() throws(WebSocketViolation) -> WebSocketInbound? {
        while true {
            if isInDataFrame {
                let count = min(payloadRemaining, input.count - readIndex)
                if count > 0, isCompressed {
                    try inflate(input[readIndex..<(readIndex + count)])
                    readIndex += count
                    payloadRemaining -= count
                } else if count > 0 {
                    let payload = input[readIndex..<(readIndex + count)]
                    if openMessage == .text, let offset = validator.validate(payload) {
                        throw WebSocketViolation(
                            closeCode: 1007,
                            reason: "the server sent a text message that is not valid UTF-8 (at byte "
                                + "\(message.count + offset), 0x\(hex(payload[payload.startIndex + offset])))")
                    }
                    message.append(contentsOf: payload)
                    readIndex += count
                    payloadRemaining -= count
                }
                guard payloadRemaining == 0 else {
                    return nil
                }
                isInDataFrame = false
                if frameIsFinal {
                    if isCompressed {
                        try inflate(Zlib.syncFlushTail[...])
                    }
                    return try finishMessage()
                }
            }
            if let control = try readHeader() {
                return control
            }
            guard isInDataFrame else {
                return nil
            }
        }
    }

    /// Reads the next frame's header: hands on a control frame whole (or nil until all of it has arrived); for a
    /// data frame, consumes the header, starts reading its payload and returns nil.
    private mutating func readHeader() throws(WebSocketViolation) -> WebSocketInbound? {
        let available = input.count - readIndex
        guard available >= 2 else {
            return nil
        }
        let first = input[readIndex]
        let second = input[readIndex + 1]
        guard first & 0x30 == 0, compression != nil || first & 0x40 == 0 else {
            throw .protocolError(
                "the server sent a frame with reserved bits set (first byte 0x\(hex(first))), but no extension was"
                    + " negotiated" + (compression == nil ? "" : " that uses RSV2 or RSV3"))
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("the server sent a frame with the reserved opcode \(first & 0x0F)")
        }
        let compressed = first & 0x40 != 0
        if compressed, opcode.isControl || opcode == .continuation {
            throw .protocolError(
                "the server sent a \(opcode) frame with RSV1 set (permessage-deflate marks only the first frame of a"
                    + " compressed message)")
        }
        guard second & 0x80 == 0 else {
            throw .protocolError("the server sent a masked \(opcode) frame (a server must not mask its frames)")
        }
        let isFinal = first & 0x80 != 0
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard isFinal else {
                throw .protocolError("the server sent a fragmented \(opcode) frame (control frames are never split)")
            }
            guard shortLength <= 125 else {
                throw .protocolError("the server sent a \(opcode) frame longer than 125 bytes")
            }
            guard available >= 2 + shortLength else {
                return nil
            }
            let payload = input[(readIndex + 2)..<(readIndex + 2 + shortLength)]
            readIndex += 2 + shortLength
            return try control(opcode, payload: payload)
        }
        if opcode == .continuation {
            guard openMessage != nil else {
                throw .protocolError("the server sent a continuation frame with no message started")
            }
        } else if let openMessage {
            throw .protocolError(
                "the server sent a new \(opcode) frame while its fragmented \(openMessage) message was still open")
        }
        let headerLength = shortLength == 126 ? 4 : shortLength == 127 ? 10 : 2
        guard available >= headerLength else {
            return nil
        }
        var length = UInt64(shortLength)
        if headerLength > 2 {
            length = 0
            for index in (readIndex + 2)..<(readIndex + headerLength) {
                length = length << 8 | UInt64(input[index])
            }
        }
        guard length >> 63 == 0 else {
            throw .protocolError(
                "the server sent a \(opcode) frame whose 64-bit length has its most significant bit set")
        }
        let kind = openMessage ?? opcode
        if compressed || (opcode == .continuation && isCompressed) {
            let sent = opcode == .continuation ? compressedCount : 0
            guard length <= UInt64(maximumCompressedMessageSize - sent) else {
                throw WebSocketViolation(
                    closeCode: 1009,
                    reason: "the server sent a compressed \(kind) message of \(UInt64(sent) + length) compressed bytes"
                        + " or more, over the limit of \(maximumCompressedMessageSize) for a message of at most"
                        + " \(maximumMessageSize) bytes")
            }
        } else if length > UInt64(maximumMessageSize - message.count) {
            let size =
                message.isEmpty
                ? "of \(length) bytes" : "of \(UInt64(message.count) + length) bytes (\(message.count) so far)"
            throw WebSocketViolation(
                closeCode: 1009,
                reason: "the server sent a \(kind) message \(size), over the limit of \(maximumMessageSize) bytes")
        }
        readIndex += headerLength
        if opcode != .continuation {
            openMessage = opcode
            validator = UTF8Validator()
            isCompressed = compressed
            compressedCount = 0
            compressedStreamEnded = false
        }
        if isCompressed {
            compressedCount += Int(length)
        }
        isInDataFrame = true
        payloadRemaining = Int(length)
        frameIsFinal = isFinal
        return nil
    }

    /// The control frame `opcode` with `payload`, checked.
    private func control(_ opcode: WebSocketOpcode, payload: ArraySlice<UInt8>) throws(WebSocketViolation)
        -> WebSocketInbound
    {
        switch opcode {
        case .ping:
            return .ping(Data(payload))
        case .pong:
            return .pong(Data(payload))
        default:
            break
        }
        guard !payload.isEmpty else {
            return .close(code: nil, reason: "")
        }
        guard payload.count >= 2 else {
            throw .protocolError("the server sent a close frame of 1 byte (its code needs 2)")
        }
        let code = Int(payload[payload.startIndex]) << 8 | Int(payload[payload.startIndex + 1])
        guard Self.isAllowedOnTheWire(code) else {
            throw .protocolError("the server sent close code \(code), which may not be sent in a close frame")
        }
        let reason = payload.dropFirst(2)
        var validator = UTF8Validator()
        guard validator.validate(reason) == nil, validator.isComplete else {
            throw WebSocketViolation(
                closeCode: 1007, reason: "the server sent close code \(code) with a reason that is not valid UTF-8")
        }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    /// Whether a close frame may carry `code` (RFC 6455 §7.4): 1000-1003, 1007-1014 and 3000-4999; the others
    /// are reserved, or (1005, 1006, 1015) stand for a close without a frame.
    package static func isAllowedOnTheWire(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// Inflates `compressed`, the next bytes of a compressed message, into the message: checks the inflated bytes'
    /// UTF-8 (up to the limit), then the limit, then the DEFLATE data, in the order the bytes come, so that any
    /// split of the same bytes fails the same way.
    private mutating func inflate(_ compressed: ArraySlice<UInt8>) throws(WebSocketViolation) {
        guard !compressedStreamEnded else {
            return  // after a final block, the rest of the message (the tail put back, at least) is not DEFLATE data
        }
        if inflater == nil {
            inflater = Zlib.Inflater(keepsWindow: compression?.serverNoContextTakeover != true)
        }
        guard let inflater else {
            throw WebSocketViolation(
                closeCode: 1011, reason: "zlib could not make an inflater for a compressed message (out of memory?)")
        }
        let start = message.count
        let outcome = compressed.withUnsafeBytes { bytes in
            inflater.inflate(bytes, into: &message, limit: maximumMessageSize)
        }
        if openMessage == .text, start < min(message.count, maximumMessageSize) {
            let checked = message[start..<min(message.count, maximumMessageSize)]
            if let offset = validator.validate(checked) {
                throw WebSocketViolation(
                    closeCode: 1007,
                    reason: "the server sent a compressed text message that is not valid UTF-8 once inflated (at byte "
                        + "\(start + offset), 0x\(hex(checked[checked.startIndex + offset])))")
            }
        }
        switch outcome {
        case .inflated(let streamEnded):
            compressedStreamEnded = streamEnded
        case .tooLarge:
            throw WebSocketViolation(
                closeCode: 1009,
                reason: "the server sent a compressed \(openMessage ?? .binary) message that inflates past the limit of"
                    + " \(maximumMessageSize) bytes (\(compressedCount) compressed bytes so far)")
        case .corrupt(let reason):
            throw .protocolError(
                "the server sent a compressed \(openMessage ?? .binary) message whose DEFLATE data is invalid"
                    + " (zlib: \(reason))")
        }
    }

    /// The message assembled, now that its final frame has ended; the decoder is then ready for the next.
    private mutating func finishMessage() throws(WebSocketViolation) -> WebSocketInbound {
        let kind = openMessage
        let payload = message
        openMessage = nil
        message = []
        if isCompressed, compression?.serverNoContextTakeover == true, !compressedStreamEnded {
            inflater?.reset()  // the next message starts with an empty window
        }
        isCompressed = false
        guard kind == .text else {
            return .message(.binary(Data(payload)))
        }
        guard validator.isComplete else {
            throw WebSocketViolation(
                closeCode: 1007,
                reason: "the server sent a text message of \(payload.count) bytes that ends inside a UTF-8 sequence")
        }
        return .message(.text(String(decoding: payload, as: UTF8.self)))
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
