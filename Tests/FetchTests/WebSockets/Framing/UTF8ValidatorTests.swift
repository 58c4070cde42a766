import Fetch
import Foundation
import Testing

@Suite struct UTF8ValidatorTests {
    /// The offset of the first invalid byte of `bytes` fed whole, or nil; and whether it ends complete.
    static func check(_ bytes: [UInt8]) -> (failure: Int?, isComplete: Bool) {
        var validator = UTF8Validator()
        let failure = validator.validate(bytes)
        return (failure, validator.isComplete)
    }

    @Test(arguments: [
        "", "plain ASCII that runs past eight bytes", "é", "€uro", "𝄞 clef", "κόσμε", "\u{10FFFF}", "\u{D7FF}\u{E000}",
        "\u{FFFD}\u{FFFF}", String(repeating: "ab€𝄞", count: 50),
    ])
    func acceptsValidText(_ text: String) {
        let result = Self.check(Array(text.utf8))
        #expect(result.failure == nil)
        #expect(result.isComplete)
    }

    @Test(
        arguments: [
            ([0xC0, 0xAF], 0),  // overlong "/"
            ([0xC1, 0xBF], 0),  // overlong
            ([0xE0, 0x80, 0xAF], 1),  // overlong 3-byte
            ([0xE0, 0x9F, 0xBF], 1),  // overlong 3-byte, largest
            ([0xF0, 0x80, 0x80, 0xAF], 1),  // overlong 4-byte
            ([0xF0, 0x8F, 0xBF, 0xBF], 1),  // overlong 4-byte, largest
            ([0xED, 0xA0, 0x80], 1),  // U+D800
            ([0xED, 0xBF, 0xBF], 1),  // U+DFFF
            ([0xF4, 0x90, 0x80, 0x80], 1),  // U+110000
            ([0xF5, 0x80, 0x80, 0x80], 0),
            ([0xFF], 0),
            ([0x80], 0),  // lone continuation
            ([0x61, 0x62, 0xBF], 2),
            ([0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65], 12),
            ([0xE2, 0x82, 0x41], 2),  // a sequence cut short by ASCII
            (Array("12345678".utf8) + [0xC3, 0x28], 9),
        ] as [([UInt8], Int)])
    func reportsTheFirstInvalidByte(_ bytes: [UInt8], at offset: Int) {
        #expect(Self.check(bytes).failure == offset)
    }

    @Test func aTruncatedSequenceIsIncompleteNotInvalid() {
        for bytes: [UInt8] in [[0xC3], [0xE2, 0x82], [0xF0, 0x9D, 0x84], [0x61, 0xF4]] {
            let result = Self.check(bytes)
            #expect(result.failure == nil, "\(bytes)")
            #expect(!result.isComplete, "\(bytes)")
        }
    }

    @Test func checksASequenceSplitAcrossPieces() {
        let text = Array("a𝄞b€".utf8)
        for split in 0...text.count {
            var validator = UTF8Validator()
            #expect(validator.validate(text[..<split]) == nil)
            #expect(validator.validate(text[split...]) == nil)
            #expect(validator.isComplete)
        }
        var validator = UTF8Validator()
        #expect(validator.validate([0xF4]) == nil)
        #expect(validator.validate([0x90]) == 0, "U+110000 fails at its second byte, in the second piece")
        var surrogate = UTF8Validator()
        #expect(surrogate.validate([0x41, 0xED]) == nil)
        #expect(surrogate.validate([0xA0, 0x80]) == 0)
    }
}
