import Foundation

/// SHA-1 (FIPS 180-4), fed in pieces.
///
/// Fetch needs it only for the WebSocket opening handshake (RFC 6455 §4.2.2: `Sec-WebSocket-Accept` is the Base64
/// of a SHA-1), where it is no security measure; swift-corelibs-foundation has no SHA-1 and CryptoKit exists only
/// on Apple platforms.
package struct SHA1: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0
    )
    /// The bytes of an unfinished 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// A hasher of the empty message.
    package init() {}

    /// The 20-byte digest of `data`, in one call.
    package static func hash(_ data: Data) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(data)
        return hasher.finalize()
    }

    /// Adds `data` to the message.
    package mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let taken = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<taken])
            offset = taken
            guard pending.count == 64 else {
                return
            }
            pending.withUnsafeBytes { compress($0, blocks: 1) }
            pending.removeAll(keepingCapacity: true)
        }
        let blocks = (bytes.count - offset) / 64
        if blocks > 0 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + blocks * 64)]), blocks: blocks)
            offset += blocks * 64
        }
        pending.append(contentsOf: bytes[offset...])
    }

    /// The 20-byte digest of the message so far; the hasher should not be used afterwards.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 {
            tail.append(0)
        }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        tail.withUnsafeBytes { compress($0, blocks: tail.count / 64) }
        pending = []
        let words = [state.0, state.1, state.2, state.3, state.4]
        return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }

    /// Processes `blocks` whole 64-byte blocks of `bytes`.
    private mutating func compress(_ bytes: UnsafeRawBufferPointer, blocks: Int) {
        var (h0, h1, h2, h3, h4) = state
        var w = [UInt32](repeating: 0, count: 80)
        for block in 0..<blocks {
            let base = block * 64
            for index in 0..<16 {
                w[index] = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: base + index * 4, as: UInt32.self))
            }
            for index in 16..<80 {
                let x = w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]
                w[index] = x &<< 1 | x &>> 31
            }
            var (a, b, c, d, e) = (h0, h1, h2, h3, h4)
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch index {
                    case 0..<20: ((b & c) | (~b & d), 0x5a82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ed9_eba1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc)
                    default: (b ^ c ^ d, 0xca62_c1d6)
                    }
                let temp = (a &<< 5 | a &>> 27) &+ f &+ e &+ k &+ w[index]
                e = d
                d = c
                c = b &<< 30 | b &>> 2
                b = a
                a = temp
            }
            h0 &+= a
            h1 &+= b
            h2 &+= c
            h3 &+= d
            h4 &+= e
        }
        state = (h0, h1, h2, h3, h4)
    }
}
