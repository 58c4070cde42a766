import Fetch
import Foundation

/// Builds the frames a server sends (unmasked), and any malformed variant, for the decoder's tests.
enum ServerFrames {
    /// One frame: FIN unless `isFinal` is false, the reserved bits `reserved` (0...7), the shortest length encoding.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], isFinal: Bool = true, reserved: UInt8 = 0) -> Data {
        var frame: [UInt8] = [(isFinal ? 0x80 : 0) | reserved << 4 | opcode]
        frame += lengthBytes(payload.count)
        return Data(frame + payload)
    }

    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], isFinal: Bool = true) -> Data {
        frame(opcode.rawValue, payload, isFinal: isFinal)
    }

    static func text(_ text: String, isFinal: Bool = true) -> Data {
        frame(.text, Array(text.utf8), isFinal: isFinal)
    }

    static func continuation(_ text: String, isFinal: Bool = true) -> Data {
        frame(.continuation, Array(text.utf8), isFinal: isFinal)
    }

    static func close(_ code: Int, _ reason: String = "") -> Data {
        frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// The second byte and extended length of an unmasked frame of `count` bytes.
    static func lengthBytes(_ count: Int) -> [UInt8] {
        switch count {
        case 0...125:
            [UInt8(count)]
        case 126...0xFFFF:
            [126, UInt8(count >> 8), UInt8(count & 0xFF)]
        default:
            [127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
        }
    }

    /// What `bytes` decode to, appended as `pieces` of at most `pieceSize` bytes each, decoding after every one:
    /// the messages and control frames, and the violation that stopped it.
    static func decode(
        _ bytes: Data, maximumMessageSize: Int = 1 << 20, pieceSize: Int = .max, compression: PerMessageDeflate? = nil
    ) -> (inbound: [WebSocketInbound], violation: WebSocketViolation?) {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: maximumMessageSize, compression: compression)
        var inbound: [WebSocketInbound] = []
        var start = bytes.startIndex
        repeat {
            let end = bytes.index(start, offsetBy: min(pieceSize, bytes.endIndex - start))
            decoder.append(bytes[start..<end])
            start = end
            do {
                while let next = try decoder.next() {
                    inbound.append(next)
                }
            } catch {
                return (inbound, error)
            }
        } while start < bytes.endIndex
        return (inbound, nil)
    }
}
