import Fetch
import Foundation

/// The WebSocket frame decoder (`WebSocketFrameDecoder`): any bytes, appended whole, byte by byte, or in splits the
/// input itself chooses (decoding after each append), give the same messages, control frames and violation; once
/// drained, the decoder never holds more than its documented bound; and it never traps.
///
/// The first byte seeds the split points and, with its top bit set, asks for the rest to be read as a description
/// of frames (so that the fuzzer reaches fragmentation and UTF-8 checks past the header checks); the second byte
/// sets the message size limit (0 to 2,040 bytes).
package enum WebSocketFrameProperties {
    /// Checks the property on `input`.
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let seed = Int(reader.byte())
        let limit = Int(reader.byte()) * 8
        let stream = seed & 0x80 != 0 ? frames(describedBy: &reader) : reader.rest()
        let whole = decode([stream], limit: limit)
        if let failure = whole.boundExceeded {
            return failure + ", fed whole, for \(stream.debugDescription)"
        }
        let bytes = decode(stream.map { Data([$0]) }, limit: limit)
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
        let split = decode(pieces, limit: limit)
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
    private static func decode(_ chunks: [Data], limit: Int) -> Outcome {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: limit)
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
            if decoder.bufferedByteCount > decoder.maximumBufferedByteCount, outcome.boundExceeded == nil {
                outcome.boundExceeded =
                    "drained, it holds \(decoder.bufferedByteCount) bytes, over its bound of"
                    + " \(decoder.maximumBufferedByteCount)"
            }
        }
        return outcome
    }

    /// Frames built from a description: per frame, a byte with FIN (bit 4), the opcode (bits 0-3), reserved bits
    /// when bits 5 and 6 are both set, and the length's encoding (bit 7: 16-bit even when short), then a payload
    /// as a ``FuzzInput/chunk(upTo:)``; every eighth frame is a 200-byte text or binary frame.
    private static func frames(describedBy reader: inout FuzzInput) -> Data {
        var stream = Data()
        var count = 0
        while !reader.isAtEnd {
            let description = reader.byte()
            var payload = reader.chunk()
            count += 1
            if count % 8 == 0 {
                payload = Data(repeating: UInt8(ascii: "a"), count: 200)
            }
            let reserved: UInt8 = description & 0x60 == 0x60 ? 0x40 : 0
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
