import Foundation

/// Builds the frames a client sends (RFC 6455 §5.2): every one masked (§5.3), its length in the shortest encoding.
package enum WebSocketFrameEncoder {
    /// The longest reason a close frame carries: 125 bytes of control payload less the 2-byte code.
    package static let maximumCloseReasonLength = 123

    /// One client frame.
    ///
    /// - Parameters:
    ///   - opcode: The frame's kind.
    ///   - payload: The unmasked payload. A control frame's must be at most 125 bytes; the caller keeps to that.
    ///   - isFinal: Whether FIN is set: false for every fragment of a message but its last.
    ///   - isCompressed: Whether RSV1 is set: the payload is a permessage-deflate message (RFC 7692 §6); only on
    ///     the first frame of a text or binary message.
    ///   - maskingKey: The key the payload is masked with (a fresh ``randomMaskingKey()`` for each frame).
    /// - Returns: The frame: the header with FIN, RSV1, opcode, the MASK bit and the length (7-bit up to 125, 16-bit
    ///   for 126...65535, 64-bit above), the key, and the masked payload.
    package static func frame(
        _ opcode: WebSocketOpcode, payload: Data, isFinal: Bool = true, isCompressed: Bool = false,
        maskingKey: UInt32
    ) -> Data {
        var frame: [UInt8] = []
        frame.reserveCapacity(14 + payload.count)
        frame.append((isFinal ? 0x80 : 0) | (isCompressed ? 0x40 : 0) | opcode.rawValue)
        switch payload.count {
        case 0...125:
            frame.append(0x80 | UInt8(payload.count))
        case 126...0xFFFF:
            frame.append(0x80 | 126)
            frame.append(UInt8(truncatingIfNeeded: payload.count >> 8))
            frame.append(UInt8(truncatingIfNeeded: payload.count))
        default:
            frame.append(0x80 | 127)
            let length = UInt64(payload.count)
            for shift in stride(from: 56, through: 0, by: -8) {
                frame.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
        }
        let key = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: maskingKey >> $0) }
        frame.append(contentsOf: key)
        let start = frame.count
        frame.append(contentsOf: payload)
        frame.withUnsafeMutableBufferPointer { bytes in
            var index = start
            var keyIndex = 0
            while index < bytes.count {
                bytes[index] ^= key[keyIndex]
                keyIndex = (keyIndex &+ 1) & 3
                index &+= 1
            }
        }
        return Data(frame)
    }

    /// A fresh masking key from `SystemRandomNumberGenerator`, as RFC 6455 §5.3 asks (unpredictable, one per frame).
    package static func randomMaskingKey() -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }

    /// A close frame's payload.
    ///
    /// - Parameters:
    ///   - code: The close code, sent big-endian; clamped to 0...65535 (the caller checks that it is one a client
    ///     may send).
    ///   - reason: The reason, cut to at most ``maximumCloseReasonLength`` bytes of UTF-8 between two characters,
    ///     so that neither a scalar nor a grapheme is split.
    /// - Returns: The two bytes of the code, then the reason's UTF-8.
    package static func closePayload(code: Int, reason: String) -> Data {
        let code = UInt16(clamping: code)
        var payload = Data([UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)])
        payload.append(closeReason(reason))
        return payload
    }

    /// A close frame's reason: at most ``maximumCloseReasonLength`` bytes of UTF-8, cut between two characters so
    /// that neither a scalar nor a grapheme is split (a peer fails the connection on a reason that is not UTF-8).
    ///
    /// - Parameter reason: The reason, of any length.
    /// - Returns: Its UTF-8, whole or cut at the last character that fits.
    package static func closeReason(_ reason: String) -> Data {
        var length = 0
        for character in reason {
            let characterLength = character.utf8.count
            guard length + characterLength <= maximumCloseReasonLength else {
                break
            }
            length += characterLength
        }
        return Data(reason.utf8.prefix(length))
    }
}
