import Fetch
import Foundation
import Testing

@Suite struct SHA1Tests {
    static func hex(_ digest: [UInt8]) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    @Test func matchesTheFIPS180Vectors() {
        #expect(Self.hex(SHA1.hash(Data())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Self.hex(SHA1.hash(Data("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            Self.hex(SHA1.hash(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func hashesAMillionAsFedInUnevenPieces() {
        var hasher = SHA1()
        let piece = Data(repeating: UInt8(ascii: "a"), count: 999)
        var fed = 0
        while fed < 1_000_000 {
            let count = min(piece.count - fed % 7, 1_000_000 - fed)
            hasher.update(piece.prefix(count))
            fed += count
        }
        #expect(Self.hex(hasher.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test(arguments: [55, 56, 63, 64, 65, 119, 120, 128])
    func piecesAndWholeAgreeAroundTheBlockBoundaries(length: Int) {
        let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var hasher = SHA1()
        for byte in message {
            hasher.update(Data([byte]))
        }
        #expect(hasher.finalize() == SHA1.hash(message))
    }
}
