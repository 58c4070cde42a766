import Fetch
import Foundation
import Testing

@Suite struct WebSocketFrameEncoderTests {
    /// `frame` with its mask removed, as a server reads it: FIN and opcode byte, MASK clear, same length, unmasked.
    static func unmasked(_ frame: Data) throws -> (frame: Data, key: [UInt8]) {
        let bytes = Array(frame)
        try #require(bytes.count >= 6)
        #expect(bytes[1] & 0x80 != 0, "a client frame is masked")
        let headerLength =
            switch bytes[1] & 0x7F {
            case 126: 4
            case 127: 10
            default: 2
            }
        let key = Array(bytes[headerLength..<(headerLength + 4)])
        let payload = bytes[(headerLength + 4)...].enumerated().map { $0.element ^ key[$0.offset % 4] }
        var header = Array(bytes[..<headerLength])
        header[1] &= 0x7F
        return (Data(header + payload), key)
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 200_000])
    func usesTheShortestLengthEncodingAndTheServerReadsItBack(length: Int) throws {
        let payload = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let frame = WebSocketFrameEncoder.frame(.binary, payload: payload, maskingKey: 0x1234_5678)
        let bytes = Array(frame)
        #expect(bytes[0] == 0x82)
        let expectedLength = Array(ServerFrames.lengthBytes(length))
        #expect(bytes[1] == 0x80 | expectedLength[0])
        #expect(Array(bytes[2..<(1 + expectedLength.count)]) == Array(expectedLength.dropFirst()))
        #expect(frame.count == 1 + expectedLength.count + 4 + length)
        let (server, key) = try Self.unmasked(frame)
        #expect(key == [0x12, 0x34, 0x56, 0x78])
        let decoded = ServerFrames.decode(server)
        #expect(decoded.violation == nil)
        #expect(decoded.inbound == [.message(.binary(payload))])
    }

    @Test func masksThePayloadWithTheKey() throws {
        let frame = WebSocketFrameEncoder.frame(.text, payload: Data("Hello".utf8), maskingKey: 0x37FA_213D)
        // RFC 6455 §5.7: a masked "Hello".
        #expect(Array(frame) == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        let (server, _) = try Self.unmasked(frame)
        #expect(ServerFrames.decode(server).inbound == [.message(.text("Hello"))])
    }

    @Test func clearsFINForAFragmentAndEncodesControlFrames() throws {
        let first = WebSocketFrameEncoder.frame(.text, payload: Data("Hel".utf8), isFinal: false, maskingKey: 1)
        let last = WebSocketFrameEncoder.frame(.continuation, payload: Data("lo".utf8), maskingKey: 2)
        let ping = WebSocketFrameEncoder.frame(.ping, payload: Data("p".utf8), maskingKey: 3)
        #expect(first[0] == 0x01)
        #expect(last[0] == 0x80)
        #expect(ping[0] == 0x89)
        let server = try Self.unmasked(first).frame + Self.unmasked(ping).frame + Self.unmasked(last).frame
        #expect(ServerFrames.decode(server).inbound == [.ping(Data("p".utf8)), .message(.text("Hello"))])
    }

    @Test func drawsAFreshMaskingKeyEachTime() {
        let keys = Set((0..<8).map { _ in WebSocketFrameEncoder.randomMaskingKey() })
        #expect(keys.count > 1)
    }

    @Test func closePayloadIsTheBigEndianCodeThenTheReason() {
        #expect(Array(WebSocketFrameEncoder.closePayload(code: 1000, reason: "")) == [0x03, 0xE8])
        #expect(
            Array(WebSocketFrameEncoder.closePayload(code: 4001, reason: "bye")) == [0x0F, 0xA1] + Array("bye".utf8))
    }

    @Test func closeReasonIsCutAt123BytesWithoutSplittingACharacter() {
        let exact = String(repeating: "a", count: 123)
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: exact).dropFirst(2) == Data(exact.utf8))
        let long = String(repeating: "a", count: 200)
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: long).count == 125)
        // "é" (2 bytes) would end at byte 124: it is left out whole.
        let accented = String(repeating: "a", count: 122) + "é"
        #expect(
            WebSocketFrameEncoder.closePayload(code: 1000, reason: accented).dropFirst(2)
                == Data(String(repeating: "a", count: 122).utf8))
        // "e" + combining acute (3 bytes, one character) and a 4-byte scalar: neither is split.
        let combining = String(repeating: "a", count: 121) + "e\u{301}"
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: combining).count == 2 + 121)
        let clef = String(repeating: "a", count: 120) + "𝄞"
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: clef).count == 2 + 120)
        let fits = String(repeating: "a", count: 119) + "𝄞"
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: fits).dropFirst(2) == Data(fits.utf8))
    }

    /// The reason alone, as the `URLSessionWebSocketTask` channel sends it (Apple platforms): valid UTF-8 whatever
    /// the length, which `reason.utf8.prefix(123)` was not.
    @Test func closeReasonAloneIsValidUTF8Within123Bytes() throws {
        for reason in [String(repeating: "é", count: 100), String(repeating: "a", count: 121) + "𝄞", "bye"] {
            let cut = WebSocketFrameEncoder.closeReason(reason)
            #expect(cut.count <= 123)
            let text = try #require(String(data: cut, encoding: .utf8), "not UTF-8: \(Array(cut))")
            #expect(reason.hasPrefix(text))
        }
        #expect(WebSocketFrameEncoder.closeReason(String(repeating: "é", count: 100)).count == 122)
    }

    @Test func closeCodeOutOfRangeIsClampedNotTrapped() {
        #expect(Array(WebSocketFrameEncoder.closePayload(code: 70_000, reason: "")) == [0xFF, 0xFF])
        #expect(Array(WebSocketFrameEncoder.closePayload(code: -1, reason: "")) == [0x00, 0x00])
    }
}
