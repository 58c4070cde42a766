import Fetch
import Foundation
import Testing

@Suite struct ContentHashTests {
    static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { ContentHash.hash($0, seed: seed) }
    }

    /// Values from an independent implementation (Python): files written by one build are read by the next, so the
    /// function must not change without a new file format.
    @Test func matchesTheReferenceValues() {
        #expect(Self.hash([]) == 0xd8a3_1015_0df9_0781)
        #expect(ContentHash.hash("a") == 0x6160_8ab6_35a0_46b7)
        #expect(ContentHash.hash("abcdefgh") == 0xb937_3d61_b82f_626b)
        #expect(ContentHash.hash("abcdefghi") == 0x6eac_3141_0a1c_e325)
        #expect(ContentHash.hash("The quick brown fox jumps over the lazy dog") == 0xa2a6_f2ee_ed92_8067)
        #expect(Self.hash(Array(0...255)) == 0x4ebb_fca3_c17a_329d)
        #expect(ContentHash.hash("https://api.example.com/users/1", seed: 1) == 0xe7ba_cdf3_ced9_145b)
        #expect(ContentHash.hash("https://api.example.com/users/1", seed: 2) == 0x60ed_df17_024b_60c1)
    }

    @Test(arguments: [1, 7, 8, 9, 64, 101])
    func everySingleFlippedBitChangesTheHash(length: Int) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let original = Self.hash(message)
        for bit in 0..<(length * 8) {
            var damaged = message
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(Self.hash(damaged) != original, "bit \(bit) of \(length) bytes")
        }
    }

    @Test func theLengthCountsSoTrailingZerosAndCutsChangeTheHash() {
        let message: [UInt8] = Array("abcdefghijk".utf8)
        #expect(Self.hash(message) != Self.hash(message + [0]))
        #expect(Self.hash([0]) != Self.hash([]))
        #expect(Self.hash([0, 0, 0, 0, 0, 0, 0, 0]) != Self.hash([0, 0, 0, 0, 0, 0, 0]))
        for cut in 0..<message.count {
            #expect(Self.hash(Array(message.prefix(cut))) != Self.hash(message), "cut at \(cut)")
        }
    }

    @Test func seedsGiveDifferentHashesAndTextHashesItsUTF8() {
        let text = "Grüße, 世界"
        let bytes = Array(text.utf8)
        #expect(ContentHash.hash(text) == Self.hash(bytes))
        #expect(ContentHash.hash(text, seed: 1) == Self.hash(bytes, seed: 1))
        #expect(ContentHash.hash(text, seed: 1) != ContentHash.hash(text, seed: 2))
    }
}
