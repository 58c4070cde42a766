import Fetch
import Foundation
import Testing

@Suite struct SHA256Tests {
    static func hex(_ text: String) -> String {
        SHA256.hex(SHA256.hash(Data(text.utf8)))
    }

    @Test func matchesTheFIPS180Vectors() {
        #expect(Self.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            ) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func hashesAMillionAsFedInUnevenPieces() {
        var hasher = SHA256()
        let piece = Data(repeating: UInt8(ascii: "a"), count: 999)
        var fed = 0
        while fed < 1_000_000 {
            let count = min(piece.count - fed % 7, 1_000_000 - fed)
            hasher.update(piece.prefix(count))
            fed += count
        }
        #expect(SHA256.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [55, 56, 63, 64, 65, 119, 120, 128])
    func piecesAndWholeAgreeAroundTheBlockBoundaries(length: Int) {
        let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var hasher = SHA256()
        for byte in message {
            hasher.update(Data([byte]))
        }
        #expect(hasher.finalize() == SHA256.hash(message))
    }
}
