/// A fast 64-bit hash of bytes, for telling whether a file came back exactly as it was written and for naming files
/// after their keys. It is **not** cryptographic: it guards against truncation and accidental damage, not against
/// someone who can write the bytes (they could as well write a matching hash, as they could a matching SHA-256).
///
/// It reads eight bytes at a time (little-endian, so the same on every platform) and mixes each word into the state
/// with a round of xxHash64's shape, `state = rotl(state + word × P2, 31) × P1`, then the length and a final
/// avalanche. Each step is a bijection of the state for a given word, so two inputs of one length that differ within
/// a single word (any one flipped bit or byte, say) always hash differently; other differences collide with a
/// probability near 2⁻⁶⁴. About one cycle per byte, against SHA-256's tens.
package enum ContentHash {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9

    /// The hash of `bytes`, starting from `seed` (hashes with different seeds are independent enough to be joined
    /// into a longer one).
    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var state = seed &+ prime3
        let count = bytes.count
        if let base = bytes.baseAddress {
            var offset = 0
            while count &- offset >= 8 {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                state = round(state, word)
                offset &+= 8
            }
            if offset < count {
                // The last 1...7 bytes as one word, zero-padded; the length, mixed in below, tells them apart from
                // real zeros.
                var word: UInt64 = 0
                var shift: UInt64 = 0
                while offset < count {
                    word |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) &<< shift
                    shift &+= 8
                    offset &+= 1
                }
                state = round(state, word)
            }
        }
        state ^= UInt64(truncatingIfNeeded: count) &* prime1
        // The avalanche of xxHash64: every input bit affects every output bit.
        state ^= state &>> 33
        state &*= prime2
        state ^= state &>> 29
        state &*= prime3
        state ^= state &>> 32
        return state
    }

    /// The hash of the UTF-8 bytes of `text`, starting from `seed`.
    package static func hash(_ text: String, seed: UInt64 = 0) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    @inline(__always)
    private static func round(_ state: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = state &+ word &* prime2
        return (mixed &<< 31 | mixed &>> 33) &* prime1
    }
}
