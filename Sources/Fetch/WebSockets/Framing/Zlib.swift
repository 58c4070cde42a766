import Foundation

#if canImport(CFetchCurl)
    import CFetchCurl
#endif

/// zlib's raw DEFLATE (RFC 1951), loaded at run time as libcurl is (`libz.so.1`; Fetch has no link-time dependency
/// on it), for permessage-deflate. Where it cannot be loaded (or on platforms without the C boundary), ``isAvailable``
/// is false and a WebSocket offers no compression.
package enum Zlib {
    /// Why zlib cannot be used, or nil when it can; loaded once per process.
    package static let unavailability: String? = {
        #if canImport(CFetchCurl)
            var error = [CChar](repeating: 0, count: 256)
            guard cfz_load(&error, error.count) != 0 else {
                return nil
            }
            return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
            return "zlib is loaded only on Linux"
        #endif
    }()

    /// Whether zlib is loaded.
    package static var isAvailable: Bool { unavailability == nil }

    /// The bytes a sync flush ends with, which permessage-deflate leaves off each message and the receiver puts
    /// back before inflating it (RFC 7692 §7.2.1 and §7.2.2).
    package static let syncFlushTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// How ``Inflater/inflate(_:into:limit:)`` ended.
    package enum InflateOutcome: Equatable {
        /// All the input is inflated; `streamEnded` when it held a final block (the rest of the input is ignored).
        case inflated(streamEnded: Bool)
        /// The output would pass the limit: inflating stopped with at most one byte past it.
        case tooLarge
        /// The input is not valid DEFLATE data: zlib's reason.
        case corrupt(String)
    }

    /// A raw DEFLATE decompressor with a window of 2^15 bytes, which reads data compressed with any window size.
    ///
    /// Confined to one owner (a decoder on one thread); it frees zlib's stream when released.
    package final class Inflater {
        #if canImport(CFetchCurl)
            private let stream: OpaquePointer
        #endif
        /// Where zlib writes, reused from call to call.
        private var scratch = [UInt8](repeating: 0, count: 32 * 1024)
        /// The bytes inflated so far, over the inflater's life.
        package private(set) var inflatedByteCount = 0

        /// An inflater, or nil when zlib is not loaded or memory is short.
        ///
        /// - Parameter keepsWindow: After a final block, whether the next data may refer to what came before it
        ///   (the peer keeps its context between messages).
        package init?(keepsWindow: Bool) {
            #if canImport(CFetchCurl)
                guard let stream = cfz_inflater_new(keepsWindow ? 1 : 0) else {
                    return nil
                }
                self.stream = stream
            #else
                return nil
            #endif
        }

        deinit {
            #if canImport(CFetchCurl)
                cfz_inflater_free(stream)
            #endif
        }

        /// Starts a new stream with an empty window (the peer does not keep its context).
        package func reset() {
            #if canImport(CFetchCurl)
                _ = cfz_inflater_reset(stream)
            #endif
        }

        /// Inflates `input`, appending to `output` until `output` would hold more than `limit` bytes.
        ///
        /// Inflating stops as soon as the output passes the limit, so a small input that would inflate to gigabytes
        /// (a compression bomb) costs at most `limit + 1` bytes and the time to make them.
        ///
        /// - Parameters:
        ///   - input: Compressed bytes.
        ///   - output: Where the inflated bytes go; whatever was inflated is appended even when it then fails.
        ///   - limit: The most bytes `output` may hold.
        /// - Returns: How it ended.
        package func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8], limit: Int)
            -> InflateOutcome
        {
            #if canImport(CFetchCurl)
                var offset = 0
                while true {
                    let room = min(scratch.count, max(0, limit - output.count) &+ 1)
                    var consumed = 0
                    var produced = 0
                    let status = scratch.withUnsafeMutableBytes { buffer in
                        cfz_inflate(
                            stream, input.baseAddress.map { $0 + offset }, input.count - offset, &consumed,
                            buffer.baseAddress, room, &produced)
                    }
                    offset += min(consumed, input.count - offset)
                    let made = min(produced, room)
                    inflatedByteCount &+= made
                    output.append(contentsOf: scratch[0..<made])
                    if output.count > limit {
                        return .tooLarge
                    }
                    switch status {
                    case Int32(CFZ_STREAM_END):
                        return .inflated(streamEnded: true)
                    case Int32(CFZ_OK), Int32(CFZ_BUF_ERROR):
                        // Done once the input is taken and zlib had room to spare: it holds nothing more to give.
                        if (offset == input.count && made < room) || (consumed == 0 && made == 0) {
                            return .inflated(streamEnded: false)
                        }
                    default:
                        let message = cfz_inflater_message(stream).map { String(cString: $0) }
                        return .corrupt(message ?? "zlib error \(status)")
                    }
                }
            #else
                return .corrupt("zlib is not available")
            #endif
        }
    }

    /// A raw DEFLATE compressor, which compresses each message with a sync flush and leaves off the flush's tail
    /// (RFC 7692 §7.2.1).
    ///
    /// Confined to one owner (a connection on one thread); it frees zlib's stream when released.
    package final class Deflater {
        #if canImport(CFetchCurl)
            private let stream: OpaquePointer
        #endif
        private var scratch = [UInt8](repeating: 0, count: 32 * 1024)

        /// A deflater with a window of 2^`windowBits` bytes (9...15), or nil when zlib is not loaded or memory is
        /// short.
        package init?(windowBits: Int) {
            #if canImport(CFetchCurl)
                guard (9...15).contains(windowBits), let stream = cfz_deflater_new(Int32(windowBits)) else {
                    return nil
                }
                self.stream = stream
            #else
                return nil
            #endif
        }

        deinit {
            #if canImport(CFetchCurl)
                cfz_deflater_free(stream)
            #endif
        }

        /// Starts the next message with an empty window (no context takeover).
        package func reset() {
            #if canImport(CFetchCurl)
                _ = cfz_deflater_reset(stream)
            #endif
        }

        /// `message` compressed as one permessage-deflate message: the sync-flushed DEFLATE data without its
        /// trailing `00 00 FF FF`; nil if zlib fails (the deflater must not be used again: its window no longer
        /// matches the peer's).
        package func compress(_ message: Data) -> Data? {
            guard !message.isEmpty else {
                // An empty stored block, less the tail (RFC 7692 §7.2.3.6): zlib makes nothing for an empty input
                // after a flush, and the window does not change.
                return Data([0x00])
            }
            #if canImport(CFetchCurl)
                var compressed = Data()
                var offset = 0
                let succeeded = message.withUnsafeBytes { input -> Bool in
                    while true {
                        var consumed = 0
                        var produced = 0
                        let status = scratch.withUnsafeMutableBytes { buffer in
                            cfz_deflate(
                                stream, input.baseAddress.map { $0 + offset }, input.count - offset, &consumed,
                                buffer.baseAddress, buffer.count, &produced, 1)
                        }
                        offset += min(consumed, input.count - offset)
                        let made = min(produced, scratch.count)
                        compressed.append(contentsOf: scratch[0..<made])
                        switch status {
                        case Int32(CFZ_OK), Int32(CFZ_BUF_ERROR):
                            // The flush is complete once all the input is in and zlib had room to spare.
                            if offset == input.count && made < scratch.count {
                                return true
                            }
                            if consumed == 0 && made == 0 {
                                return false
                            }
                        default:
                            return false
                        }
                    }
                }
                guard succeeded, compressed.count >= 4, Array(compressed.suffix(4)) == Zlib.syncFlushTail else {
                    return nil
                }
                return compressed.dropLast(4)
            #else
                return nil
            #endif
        }
    }
}
