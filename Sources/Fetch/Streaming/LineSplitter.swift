import Foundation

/// Splits a stream of bytes, chunk by chunk, into UTF-8 lines ended by LF or CRLF, wherever the chunks are split.
///
/// A lone CR stays in the line; invalid UTF-8 becomes U+FFFD. Used by ``ResponseStream/lines`` and JSON Lines.
package struct LineSplitter: Sendable {
    private var partial: [UInt8] = []

    package init() {}

    /// The lines that `chunk` completes, without their line endings.
    package mutating func split(_ chunk: Data) -> [String] {
        var lines: [String] = []
        chunk.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var lineStart = buffer.startIndex
            while let newline = buffer[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                partial.append(contentsOf: buffer[lineStart..<newline])
                lines.append(Self.line(partial))
                partial.removeAll(keepingCapacity: true)
                lineStart = newline + 1
            }
            partial.append(contentsOf: buffer[lineStart...])
        }
        return lines
    }

    /// The last line, when the stream ended without a line ending after it; `nil` when nothing is left.
    package mutating func finish() -> String? {
        defer { partial = [] }
        return partial.isEmpty ? nil : Self.line(partial)
    }

    private static func line(_ bytes: [UInt8]) -> String {
        let content = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...]
        return String(decoding: content, as: UTF8.self)
    }
}
