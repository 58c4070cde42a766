/// A random (version 4) UUID as `UUID().uuidString` spells it, uppercase with hyphens, made without Foundation's
/// `uuid_unparse` (a `sprintf` that cost a request id about 8,000 instructions on Linux).
enum RandomUUID {
    static func string() -> String {
        var random = SystemRandomWords(prefetching: 2)
        // RFC 9562 §5.4: the version (4) in the high nibble of byte 6, the variant (10) in the top bits of byte 8.
        let high = random.next() & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
        let low = random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                let word = nibble < 16 ? high : low
                let digit = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (nibble % 16)) & 0xF)
                buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "A") - 10 + digit
                index += 1
            }
            return index
        }
    }
}
