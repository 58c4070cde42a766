/// Checks UTF-8 as it arrives, a piece at a time, and fails at the first byte that makes it invalid.
///
/// RFC 6455 §8.1 asks a client to fail the connection on invalid text; checking each piece as it is read (rather
/// than a whole message at its end) fails it as soon as the offending byte has arrived, even in the middle of a
/// frame, and a sequence split between pieces is checked across the split. It accepts exactly RFC 3629 UTF-8:
/// overlong forms, surrogates (U+D800...U+DFFF) and scalars above U+10FFFF are invalid.
package struct UTF8Validator: Sendable, Equatable {
    /// The continuation bytes the current sequence still needs: 0 between sequences.
    private var missing = 0
    /// The range the next continuation byte must fall in (narrower than 80...BF after E0, ED, F0 and F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator at the start of a text.
    package init() {}

    /// Whether the bytes so far end between sequences, so that the text may end here.
    package var isComplete: Bool { missing == 0 }

    /// Checks the next `bytes` of the text.
    ///
    /// - Returns: The offset in `bytes` of the first byte that cannot follow what came before, or nil when all of
    ///   them can; after a failure the validator's state is unspecified.
    package mutating func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        guard let base = bytes.baseAddress else {
            return nil
        }
        while index < count {
            if missing == 0 {
                // ASCII runs, eight bytes at a time: most text is ASCII, and tests run unoptimized builds.
                while count &- index >= 8,
                    UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index &+= 8
                }
                guard index < count else {
                    break
                }
                let byte = base[index]
                switch byte {
                case 0x00...0x7F: break
                case 0xC2...0xDF: expect(1, 0x80, 0xBF)
                case 0xE0: expect(2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
                case 0xED: expect(2, 0x80, 0x9F)
                case 0xF0: expect(3, 0x90, 0xBF)
                case 0xF1...0xF3: expect(3, 0x80, 0xBF)
                case 0xF4: expect(3, 0x80, 0x8F)
                default: return index
                }
            } else {
                let byte = base[index]
                guard byte >= lower, byte <= upper else {
                    return index
                }
                missing &-= 1
                lower = 0x80
                upper = 0xBF
            }
            index &+= 1
        }
        return nil
    }

    /// Checks the next `bytes` of the text: the offset of the first invalid byte in them, or nil.
    package mutating func validate(_ bytes: some Collection<UInt8>) -> Int? {
        if let result = bytes.withContiguousStorageIfAvailable({ validate($0) }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { validate($0) }
    }

    private mutating func expect(_ count: Int, _ lower: UInt8, _ upper: UInt8) {
        missing = count
        self.lower = lower
        self.upper = upper
    }
}
