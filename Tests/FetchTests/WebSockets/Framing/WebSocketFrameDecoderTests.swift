import Fetch
import Foundation
import Testing

@Suite struct WebSocketFrameDecoderTests {
    typealias Frames = ServerFrames

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 1 << 20])
    func decodesEveryPayloadLengthBoundary(length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let text = String(repeating: "x", count: length)
        let bytes = Frames.frame(.binary, payload) + Frames.text(text)
        let decoded = Frames.decode(bytes, maximumMessageSize: 1 << 20)
        #expect(decoded.violation == nil)
        #expect(decoded.inbound == [.message(.binary(Data(payload))), .message(.text(text))])
    }

    @Test func decodesA64BitLengthEvenWhenItFitsIn16Bits() {
        // Not the shortest encoding, but a length a server may send: accepted.
        let bytes = Data([0x82, 127, 0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3])
        #expect(Frames.decode(bytes).inbound == [.message(.binary(Data([1, 2, 3])))])
    }

    static let conversation =
        Frames.text("Hel", isFinal: false) + Frames.frame(.ping, Array("p1".utf8))
        + Frames.continuation("lo ", isFinal: false) + Frames.frame(.pong, [])
        + Frames.continuation("wörld", isFinal: false) + Frames.frame(.ping, Array(repeating: 7, count: 125))
        + Frames.continuation("!") + Frames.frame(.binary, Array(repeating: 9, count: 300))
        + Frames.frame(.binary, [], isFinal: false) + Frames.frame(.continuation, [])
        + Frames.text("") + Frames.text("", isFinal: false) + Frames.continuation("") + Frames.close(1000, "done")
    static let conversationInbound: [WebSocketInbound] = [
        .ping(Data("p1".utf8)), .pong(Data()), .ping(Data(repeating: 7, count: 125)),
        .message(.text("Hello wörld!")), .message(.binary(Data(repeating: 9, count: 300))),
        .message(.binary(Data())), .message(.text("")), .message(.text("")), .close(code: 1000, reason: "done"),
    ]

    @Test func handsOnControlFramesBetweenFragmentsAtOnceAndAcceptsEmptyMessagesAndFragments() {
        let decoded = Frames.decode(Self.conversation)
        #expect(decoded.violation == nil)
        #expect(decoded.inbound == Self.conversationInbound)
    }

    @Test(arguments: [1, 2, 3, 5, 64])
    func decodesTheSameWhateverThePieceSize(pieceSize: Int) {
        let decoded = Frames.decode(Self.conversation, pieceSize: pieceSize)
        #expect(decoded.violation == nil)
        #expect(decoded.inbound == Self.conversationInbound)
    }

    @Test func handsOnAPingBeforeTheRestOfAFragmentedMessageHasArrived() throws {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: 100)
        decoder.append(Frames.text("ab", isFinal: false) + Frames.frame(.ping, [1]))
        #expect(try decoder.next() == .ping(Data([1])))
        #expect(try decoder.next() == nil)
        decoder.append(Frames.continuation("c"))
        #expect(try decoder.next() == .message(.text("abc")))
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func closeWithoutPayloadHasNoCodeAndValidCodesAreHandedOn() {
        #expect(Frames.decode(Frames.frame(.close, [])).inbound == [.close(code: nil, reason: "")])
        for code in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
            let decoded = Frames.decode(Frames.close(code, "why ✓"))
            #expect(decoded.violation == nil, "code \(code)")
            #expect(decoded.inbound == [.close(code: code, reason: "why ✓")], "code \(code)")
        }
    }

    /// A case of the protocol broken: the bytes, and the close code they call for.
    struct Violation: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: Data
        let closeCode: Int
        var testDescription: String { name }

        init(_ name: String, _ bytes: Data, _ closeCode: Int = 1002) {
            self.name = name
            self.bytes = bytes
            self.closeCode = closeCode
        }
    }

    static let violations: [Violation] =
        [1, 2, 4].map { Violation("RSV bits \($0)", Frames.frame(1, Array("a".utf8), reserved: $0)) }
        + [3, 4, 5, 6, 7, 11, 12, 13, 14, 15].map { Violation("opcode \($0)", Frames.frame(UInt8($0), [])) }
        + [
            Violation("a masked server frame", Data([0x81, 0x81, 1, 2, 3, 4, 0x61 ^ 1])),
            Violation("a ping with FIN clear", Frames.frame(.ping, [], isFinal: false)),
            Violation("a close with FIN clear", Frames.frame(.close, [0x03, 0xE8], isFinal: false)),
            Violation("a ping of 126 bytes", Frames.frame(.ping, Array(repeating: 0, count: 126))),
            Violation("a pong of 126 bytes", Frames.frame(.pong, Array(repeating: 0, count: 126))),
            Violation("a continuation with no message", Frames.continuation("a")),
            Violation("a text inside a fragmented text", Frames.text("a", isFinal: false) + Frames.text("b")),
            Violation(
                "a binary inside a fragmented text",
                Frames.text("a", isFinal: false) + Frames.frame(.ping, []) + Frames.frame(.binary, [])),
            Violation("a 64-bit length with its top bit set", Data([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1])),
            Violation("a close of 1 byte", Frames.frame(.close, [0x03])),
            Violation("invalid UTF-8 in a text", Frames.frame(.text, [0x61, 0xC0, 0xAF]), 1007),
            Violation("a surrogate in a text", Frames.frame(.text, [0xED, 0xA0, 0x80]), 1007),
            Violation("a text truncated at its end", Frames.frame(.text, [0x61, 0xE2, 0x82]), 1007),
            Violation(
                "invalid UTF-8 split across fragments",
                Frames.frame(.text, [0x61, 0xF4], isFinal: false) + Frames.frame(.continuation, [0x90, 0x80, 0x80]),
                1007),
            Violation(
                "a text truncated at the end of its last fragment",
                Frames.frame(.text, [0xF0, 0x9D], isFinal: false) + Frames.frame(.continuation, [0x84]), 1007),
            Violation("invalid UTF-8 in a close reason", Frames.frame(.close, [0x03, 0xE8, 0x61, 0xFF]), 1007),
            Violation("a close reason truncated", Frames.frame(.close, [0x03, 0xE8, 0xC3]), 1007),
            Violation("a message over the limit", Frames.frame(.binary, Array(repeating: 1, count: 101)), 1009),
            Violation(
                "fragments over the limit together",
                Frames.text(String(repeating: "a", count: 60), isFinal: false)
                    + Frames.continuation(String(repeating: "b", count: 41)), 1009),
        ]
        + [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535].map {
            Violation("close code \($0)", Frames.close($0))
        }

    @Test(arguments: violations)
    func violationsAreReportedWithTheirCloseCode(_ violation: Violation) {
        for pieceSize in [Int.max, 1] {
            let decoded = Frames.decode(violation.bytes, maximumMessageSize: 100, pieceSize: pieceSize)
            #expect(decoded.violation?.closeCode == violation.closeCode, "pieces of \(pieceSize)")
            #expect(decoded.violation?.reason.contains("the server sent") == true)
        }
    }

    @Test func describesWhatCameBack() {
        #expect(
            Frames.decode(Frames.frame(7, [])).violation?.reason == "the server sent a frame with the reserved opcode 7"
        )
        #expect(
            Frames.decode(Frames.close(1005)).violation?.reason
                == "the server sent close code 1005, which may not be sent in a close frame")
        #expect(
            Frames.decode(Frames.frame(.binary, Array(repeating: 0, count: 11)), maximumMessageSize: 10).violation?
                .reason == "the server sent a binary message of 11 bytes, over the limit of 10 bytes")
        #expect(
            Frames.decode(Frames.frame(.text, [0x61, 0x62, 0xC0])).violation?.reason
                == "the server sent a text message that is not valid UTF-8 (at byte 2, 0xC0)")
    }

    @Test func invalidUTF8FailsAsSoonAsItsByteArrivesMidFrame() throws {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: 1000)
        // A text frame of 100 bytes, of which only the first three have arrived.
        decoder.append(Data([0x81, 100, 0x61, 0x62]))
        #expect(try decoder.next() == nil)
        decoder.append(Data([0xC0]))
        #expect(throws: WebSocketViolation.self) { try decoder.next() }
        #expect(throws: WebSocketViolation.self, "a violation stays") { try decoder.next() }
    }

    @Test func invalidUTF8SplitAcrossFragmentsFailsAtTheByteThatBreaksIt() throws {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: 1000)
        decoder.append(Frames.frame(.text, [0x61, 0xED], isFinal: false))
        #expect(try decoder.next() == nil)
        // The next fragment's header and first byte: 0xED 0xA0 would be a surrogate.
        decoder.append(Data([0x80, 10]))
        #expect(try decoder.next() == nil)
        decoder.append(Data([0xA0]))
        do {
            _ = try decoder.next()
            Issue.record("a surrogate split across fragments was accepted")
        } catch {
            #expect(error.closeCode == 1007)
            #expect(error.reason.contains("at byte 2"))
        }
    }

    @Test func aMessageOverTheLimitFailsFromItsHeaderBeforeItsPayloadArrives() throws {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: 1 << 20)
        decoder.append(Data([0x82, 127, 0, 0, 0, 0, 0, 0x10, 0, 1]))
        #expect(
            throws: WebSocketViolation(
                closeCode: 1009,
                reason: "the server sent a binary message of 1048577 bytes, over the limit of 1048576 bytes")
        ) {
            try decoder.next()
        }
        var fragments = WebSocketFrameDecoder(maximumMessageSize: 10)
        fragments.append(Frames.text("12345", isFinal: false) + Frames.continuation("12345", isFinal: false))
        #expect(try fragments.next() == nil)
        fragments.append(Data([0x80, 1]))
        do {
            _ = try fragments.next()
            Issue.record("a fragment past the limit was accepted")
        } catch {
            #expect(error.closeCode == 1009)
            #expect(
                error.reason == "the server sent a text message of 11 bytes (10 so far), over the limit of 10 bytes")
        }
    }

    @Test func theLargestLengthsAreCheckedWithoutTrapping() throws {
        let largest: [UInt8] = [127, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(Frames.decode(Data([0x82] + largest), maximumMessageSize: .max).violation == nil)
        #expect(Frames.decode(Data([0x82] + largest), maximumMessageSize: 1 << 30).violation?.closeCode == 1009)
        var decoder = WebSocketFrameDecoder(maximumMessageSize: .max)
        decoder.append(Frames.text("a", isFinal: false) + Data([0x80] + largest))
        do {
            _ = try decoder.next()
            Issue.record("a fragment of 2^63 - 1 bytes after 1 byte was accepted")
        } catch {
            #expect(error.closeCode == 1009)
        }
    }

    @Test func holdsNoMoreThanTheLimitAndAControlFrameOnceDrained() throws {
        let limit = 1000
        var decoder = WebSocketFrameDecoder(maximumMessageSize: limit)
        #expect(decoder.maximumBufferedByteCount == limit + 127)
        let bytes =
            Frames.frame(.binary, Array(repeating: 1, count: 600), isFinal: false)
            + Frames.frame(.ping, Array(repeating: 2, count: 125))
            + Frames.frame(.continuation, Array(repeating: 3, count: 400))
            + Frames.frame(.pong, Array(repeating: 4, count: 125))
        var largest = 0
        for byte in bytes {
            decoder.append(Data([byte]))
            while try decoder.next() != nil {}
            largest = max(largest, decoder.bufferedByteCount)
        }
        #expect(largest <= decoder.maximumBufferedByteCount)
        #expect(largest >= limit - 1, "all but the last byte of the message was held")
        #expect(decoder.bufferedByteCount == 0)
    }

    /// Seconds to decode a binary message of `size` bytes appended in 64 KiB pieces, drained after each.
    static func secondsToDecode(size: Int, text: Bool) throws -> Double {
        let piece = 1 << 16
        let frame =
            text
            ? Frames.text(String(repeating: "abcdéfgh", count: size / 9))
            : Frames.frame(.binary, Array(repeating: 5, count: size))
        var decoder = WebSocketFrameDecoder(maximumMessageSize: 16 << 20)
        let start = ContinuousClock.now
        var received: [WebSocketInbound] = []
        var offset = frame.startIndex
        while offset < frame.endIndex {
            let end = min(frame.endIndex, offset + piece)
            decoder.append(frame[offset..<end])
            offset = end
            while let next = try decoder.next() {
                received.append(next)
            }
            #expect(decoder.bufferedByteCount <= decoder.maximumBufferedByteCount)
        }
        let elapsed = ContinuousClock.now - start
        #expect(received.count == 1)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test(arguments: [false, true])
    func decodesA16MiBMessageIn64KiBPiecesInLinearTime(text: Bool) throws {
        _ = try Self.secondsToDecode(size: 1 << 20, text: text)  // warm up
        let small = try Self.secondsToDecode(size: 1 << 20, text: text)
        let large = try Self.secondsToDecode(size: 16 << 20, text: text)
        // Linear: about 16 times as long; quadratic copying would take about 256 times.
        #expect(large < max(small, 0.01) * 48, "1 MiB took \(small) s, 16 MiB \(large) s")
    }

    @Test func decodesAWholeMessageAppendedBeforeAnyNext() throws {
        var decoder = WebSocketFrameDecoder(maximumMessageSize: 4 << 20)
        let frame = Frames.frame(.binary, Array(repeating: 6, count: 4 << 20))
        var offset = frame.startIndex
        while offset < frame.endIndex {
            let end = min(frame.endIndex, offset + 1 << 16)
            decoder.append(frame[offset..<end])
            offset = end
        }
        #expect(decoder.bufferedByteCount == frame.count)
        #expect(try decoder.next() == .message(.binary(Data(repeating: 6, count: 4 << 20))))
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func aNegativeLimitAcceptsOnlyEmptyMessages() {
        #expect(Frames.decode(Frames.text(""), maximumMessageSize: -5).inbound == [.message(.text(""))])
        #expect(Frames.decode(Frames.text("a"), maximumMessageSize: -5).violation?.closeCode == 1009)
    }
}
