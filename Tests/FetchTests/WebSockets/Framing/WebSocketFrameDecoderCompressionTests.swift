import Fetch
import Foundation
import Testing

/// The decoder with permessage-deflate agreed (RFC 7692): compressed messages inflate, with or without the server's
/// context, in any split; RSV1 is allowed only where the RFC puts it; and the message limit holds for the inflated
/// size, without inflating a compression bomb beyond it.
@Suite(.enabled(if: Zlib.isAvailable, "needs zlib (libz.so.1)")) struct WebSocketFrameDecoderCompressionTests {
    typealias Frames = ServerFrames

    static let withContext = PerMessageDeflate()
    static var withoutContext: PerMessageDeflate {
        var agreement = PerMessageDeflate()
        agreement.serverNoContextTakeover = true
        return agreement
    }

    /// The first frame of a compressed message: RSV1 set.
    static func compressed(_ opcode: WebSocketOpcode, _ payload: Data, isFinal: Bool = true) -> Data {
        Frames.frame(opcode.rawValue, Array(payload), isFinal: isFinal, reserved: 4)
    }

    /// A server's deflater: window of 2^15, context kept unless reset.
    static func deflater() throws -> Zlib.Deflater {
        try #require(Zlib.Deflater(windowBits: 15))
    }

    @Test(arguments: [0, 125, 64 << 10, 1 << 20])
    func inflatesTextAndBinaryOfEveryLengthInAnySplit(length: Int) throws {
        let deflater = try Self.deflater()
        let text = String(repeating: "wörld ", count: length / 7) + String(repeating: "a", count: length % 7)
        let binary = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let bytes =
            Self.compressed(.text, try #require(deflater.compress(Data(text.utf8))))
            + Self.compressed(.binary, try #require(deflater.compress(binary)))
        let expected: [WebSocketInbound] = [.message(.text(text)), .message(.binary(binary))]
        for pieceSize in length > 1000 ? [.max, 4096] : [.max, 1, 3] {
            let decoded = Frames.decode(bytes, pieceSize: pieceSize, compression: Self.withContext)
            #expect(decoded.violation == nil, "pieces of \(pieceSize)")
            #expect(decoded.inbound == expected, "pieces of \(pieceSize)")
        }
    }

    /// RFC 7692 §7.2.3's own examples: "Hello" compressed, in one frame and in two, then "Hello" again referring to
    /// the first (context takeover), then "Hello" in a final block (BFINAL), then once more referring to it.
    @Test func decodesTheRFCExamplesIncludingAFinalBlockWhoseWindowTheNextMessageUses() {
        let hello: [UInt8] = [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]
        let bytes =
            Data([0xc1, 0x07] + hello)
            + Data([0x41, 0x03, 0xf2, 0x48, 0xcd]) + Data([0x80, 0x04, 0xc9, 0xc9, 0x07, 0x00])
            + Data([0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00])
            + Data([0xc1, 0x07, 0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
            + Data([0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00])
            + Data([0xc1, 0x0b, 0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00])
        let decoded = Frames.decode(bytes, compression: Self.withContext)
        #expect(decoded.violation == nil)
        #expect(decoded.inbound == Array(repeating: .message(.text("Hello")), count: 6))
    }

    @Test func withoutTheServersContextEachMessageStartsWithAnEmptyWindow() throws {
        let deflater = try Self.deflater()
        let first = try #require(deflater.compress(Data("Hello".utf8)))
        deflater.reset()
        let second = try #require(deflater.compress(Data("Hello".utf8)))
        let bytes = Self.compressed(.text, first) + Self.compressed(.text, second)
        #expect(
            Frames.decode(bytes, compression: Self.withoutContext).inbound == [
                .message(.text("Hello")), .message(.text("Hello")),
            ])
        // A message that refers to the one before fails once the window is emptied between them.
        let referring =
            Data([0xc1, 0x07] + [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
            + Data([0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00])
        let decoded = Frames.decode(referring, compression: Self.withoutContext)
        #expect(decoded.inbound == [.message(.text("Hello"))])
        #expect(decoded.violation?.closeCode == 1002, "\(String(describing: decoded.violation))")
    }

    @Test func anUncompressedMessageIsReadAsItIsOnACompressedConnection() {
        let decoded = Frames.decode(
            Frames.text("plain") + Frames.frame(.binary, [1, 2]), compression: Self.withContext)
        #expect(decoded.inbound == [.message(.text("plain")), .message(.binary(Data([1, 2])))])
    }

    @Test func aFragmentedCompressedMessageHasRSV1OnItsFirstFrameOnlyAndMayHaveControlFramesBetween() throws {
        let payload = try #require(try Self.deflater().compress(Data(String(repeating: "abc", count: 500).utf8)))
        let third = payload.count / 3
        let bytes =
            Self.compressed(.text, payload.prefix(third), isFinal: false) + Frames.frame(.ping, [7])
            + Frames.frame(.continuation, Array(payload.dropFirst(third).prefix(third)), isFinal: false)
            + Frames.frame(.continuation, Array(payload.dropFirst(2 * third)))
        let decoded = Frames.decode(bytes, pieceSize: 5, compression: Self.withContext)
        #expect(decoded.violation == nil)
        #expect(decoded.inbound == [.ping(Data([7])), .message(.text(String(repeating: "abc", count: 500)))])
    }

    @Test(arguments: [
        ("RSV1 with nothing agreed", Data([0xc1, 0x00]), false),
        ("RSV1 on a continuation frame", Data([0x01, 0x01, 0x61, 0xc0, 0x00]), true),
        ("RSV1 on a ping", Data([0xc9, 0x00]), true),
        ("RSV1 on a close", Data([0xc8, 0x02, 0x03, 0xe8]), true),
        ("RSV2 with permessage-deflate agreed", Data([0xa1, 0x00]), true),
        ("RSV3 with permessage-deflate agreed", Data([0x91, 0x00]), true),
        ("invalid DEFLATE data", Data([0xc2, 0x02, 0xff, 0xff]), true),
    ])
    func reservedBitsWhereTheRFCPutsNoneAndCorruptDataAreProtocolErrors(name: String, bytes: Data, agreed: Bool) {
        let decoded = Frames.decode(bytes, compression: agreed ? Self.withContext : nil)
        #expect(decoded.inbound.isEmpty, "\(name)")
        #expect(decoded.violation?.closeCode == 1002, "\(name): \(String(describing: decoded.violation))")
    }

    @Test func textThatIsNotUTF8OnceInflatedIsA1007() throws {
        let payload = try #require(try Self.deflater().compress(Data([0x61, 0xc3, 0x28])))
        let decoded = Frames.decode(Self.compressed(.text, payload), compression: Self.withContext)
        #expect(decoded.violation?.closeCode == 1007)
        #expect(decoded.violation?.reason.contains("inflated") == true)
    }

    /// 64 MiB of zeros compress to about 64 KiB: against a limit of 1 MiB the decoder stops within a byte of the
    /// limit, however the frame arrives.
    @Test(arguments: [Int.max, 1000])
    func aCompressionBombEndsIn1009WithoutBeingInflatedPastTheLimit(pieceSize: Int) throws {
        let bomb = try #require(try Self.deflater().compress(Data(count: 64 << 20)))
        #expect(bomb.count < 128 << 10)
        let limit = 1 << 20
        var decoder = WebSocketFrameDecoder(maximumMessageSize: limit, compression: Self.withContext)
        let frame = Self.compressed(.binary, bomb)
        var violation: WebSocketViolation?
        var start = frame.startIndex
        while start < frame.endIndex, violation == nil {
            let end = frame.index(start, offsetBy: min(pieceSize, frame.endIndex - start))
            decoder.append(frame[start..<end])
            start = end
            do {
                #expect(try decoder.next() == nil)
            } catch {
                violation = error
            }
        }
        #expect(violation?.closeCode == 1009, "\(String(describing: violation))")
        #expect(decoder.inflatedByteCount <= limit + 1, "inflated \(decoder.inflatedByteCount) bytes")
        #expect(decoder.inflatedByteCount >= limit)
    }

    @Test func aMessageAtTheLimitInflatesWhole() throws {
        let payload = Data(count: 4096)
        let bytes = Self.compressed(.binary, try #require(try Self.deflater().compress(payload)))
        #expect(
            Frames.decode(bytes, maximumMessageSize: 4096, compression: Self.withContext).inbound == [
                .message(.binary(payload))
            ])
        #expect(
            Frames.decode(bytes, maximumMessageSize: 4095, compression: Self.withContext).violation?.closeCode
                == 1009)
    }

    @Test func anEndlessCompressedMessageOfEmptyBlocksEndsAtItsCompressedBound() {
        // Empty stored blocks (00 00 00 FF FF) inflate to nothing; a message made of them is bounded on the wire.
        var decoder = WebSocketFrameDecoder(maximumMessageSize: 1000, compression: Self.withContext)
        let block = Data([0x00, 0x00, 0x00, 0xff, 0xff])
        decoder.append(Self.compressed(.binary, block, isFinal: false))
        var violation: WebSocketViolation?
        for _ in 0..<2000 where violation == nil {
            decoder.append(Frames.frame(.continuation, Array(block), isFinal: false))
            do {
                _ = try decoder.next()
            } catch {
                violation = error
            }
        }
        #expect(violation?.closeCode == 1009, "\(String(describing: violation))")
    }
}
