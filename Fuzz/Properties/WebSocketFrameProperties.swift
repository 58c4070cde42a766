import Fetch
import Foundation

/// The WebSocket frame decoder (`WebSocketFrameDecoder`): any bytes, appended whole, byte by byte, or in splits the
/// input itself chooses (decoding after each append), give the same messages, control frames and violation; once
/// drained, the decoder never holds more than its documented bound; and it never traps.
///
/// The first byte seeds the split points; with its top bit set, it asks for the rest to be read as a description
/// of frames (so that the fuzzer reaches fragmentation and UTF-8 checks past the header checks); with bit 6 set,
/// the decoder has permessage-deflate agreed (RFC 7692, the server's context kept), and described frames may carry
/// payloads compressed with zlib, so that inflating, its bound and the checks of the inflated bytes are reached.
/// The second byte sets the message size limit (0 to 2,040 bytes).
package enum WebSocketFrameProperties {
    /// Checks the property on `input`.
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let seed = Int(reader.byte())
        let limit = Int(reader.byte()) * 8
        let compression = seed & 0x40 != 0 && Zlib.isAvailable ? PerMessageDeflate() : nil
        let stream =
            seed & 0x80 != 0 ? frames(describedBy: &reader, compressing: compression != nil) : reader.rest()
        let whole = decode([stream], limit: limit, compression: compression)
        if let failure = whole.boundExceeded {
            return failure + ", fed whole, for \(stream.debugDescription)"
        }
        let bytes = decode(stream.map { Data([$0]) }, limit: limit, compression: compression)
        guard bytes == whole else {
            return "byte by byte gives \(bytes), whole gives \(whole), for \(Array(stream)) with limit \(limit)"
        }
        var pieces: [Data] = []
        var start = stream.startIndex
        var step = seed % 7 + 1
        while start < stream.endIndex {
            let end = min(stream.endIndex, start + step)
            pieces.append(stream[start..<end])
            start = end
            step = (step * 5 + seed) % 131 + 1
        }
        let split = decode(pieces, limit: limit, compression: compression)
        guard split == whole else {
            return "split as \(pieces.map(\.count)) gives \(split), whole gives \(whole), for \(Array(stream))"
                + " with limit \(limit)"
        }
        return nil
    }

    private struct Outcome: Equatable, CustomStringConvertible {
        var inbound: [WebSocketInbound] = []
        var violation: WebSocketViolation?
        /// What broke the buffer bound, if anything did (not compared: each feeding checks its own).
        var boundExceeded: String?

        static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            lhs.inbound == rhs.inbound && lhs.violation == rhs.violation && lhs.boundExceeded == rhs.boundExceeded
        }

        var description: String {
            "\(inbound)" + (violation.map { ", then \($0)" } ?? "") + (boundExceeded.map { ", \($0)" } ?? "")
        }
    }

    /// What `chunks` decode to, appended one at a time and drained after each.
    private static func decode(_ chunks: [Data], limit: Int, compression: PerMessageDeflate?) -> Outcome {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: limit, compression: compression)
        var outcome = Outcome()
        for chunk in chunks {
            decoder.append(chunk)
            do {
                while let next = try decoder.next() {
                    outcome.inbound.append(next)
                }
            } catch {
                outcome.violation = error
                return outcome
            }
            if decoder.inflatedByteCount > totalInflated(outcome) + limit + 1, outcome.boundExceeded == nil {
                outcome.boundExceeded =
                    "it inflated \(decoder.inflatedByteCount) bytes, more than a byte past the limit of the messages"
                    + " it handed on"
            }
            if decoder.bufferedByteCount > decoder.maximumBufferedByteCount, outcome.boundExceeded == nil {
                outcome.boundExceeded =
                    "drained, it holds \(decoder.bufferedByteCount) bytes, over its bound of"
                    + " \(decoder.maximumBufferedByteCount)"
            }
        }
        return outcome
    }

    /// The bytes of the messages in `outcome`: what the decoder had to inflate at least.
    private static func totalInflated(_ outcome: Outcome) -> Int {
        outcome.inbound.reduce(0) { total, inbound in
            guard case .message(let message) = inbound else {
                return total
            }
            return total + message.bytes.count
        }
    }

    /// Frames built from a description: per frame, a byte with FIN (bit 4), the opcode (bits 0-3), RSV1 when bits 5
    /// and 6 are both set, and the length's encoding (bit 7: 16-bit even when short), then a payload as a
    /// ``FuzzInput/chunk(upTo:)``; every eighth frame is a 200-byte text or binary frame. When `compressing`, a
    /// frame with bit 5 set and bit 6 clear carries its payload compressed (one zlib stream for the whole input,
    /// context kept) with RSV1 set.
    private static func frames(describedBy reader: inout FuzzInput, compressing: Bool) -> Data {
        var stream = Data()
        var count = 0
        let deflater = compressing ? Zlib.Deflater(windowBits: 15) : nil
        while !reader.isAtEnd {
            let description = reader.byte()
            var payload = reader.chunk()
            count += 1
            if count % 8 == 0 {
                payload = Data(repeating: UInt8(ascii: "a"), count: 200)
            }
            var reserved: UInt8 = description & 0x60 == 0x60 ? 0x40 : 0
            if description & 0x60 == 0x20, let deflater, let compressed = deflater.compress(payload) {
                payload = compressed
                reserved = 0x40
            }
            stream.append((description & 0x10) << 3 | reserved | description & 0x0F)
            if payload.count >= 126 || description & 0x80 != 0 {
                stream.append(126)
                stream.append(UInt8(truncatingIfNeeded: payload.count >> 8))
                stream.append(UInt8(truncatingIfNeeded: payload.count))
            } else {
                stream.append(UInt8(payload.count))
            }
            stream.append(payload)
        }
        return stream
    }
}
