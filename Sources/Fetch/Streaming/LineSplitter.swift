import Foundation

/// Splits a stream of bytes, chunk by chunk, into UTF-8 lines ended by LF or CRLF, wherever the chunks are split.
///
/// A lone CR stays in the line; invalid UTF-8 becomes U+FFFD. Used by ``ResponseStream/lines`` and JSON Lines.
///
/// A line longer than ``limit`` bytes (without its line ending) is an error: the splitter never holds more than
/// `limit + 1` bytes of a line that has not ended, however long the server makes it.
package struct LineSplitter: Sendable {
    /// The longest line, in bytes, without its line ending.
    package let limit: Int
    private var partial: [UInt8] = []

    /// - Parameter limit: The longest line, in bytes. The default is ``ResponseStream/maximumLineLength``.
    package init(limit: Int = ResponseStream.maximumLineLength) {
        self.limit = max(1, limit)
    }

    /// The lines that `chunk` completes, without their line endings.
    ///
    /// - Throws: ``FetchError/lineTooLong(limit:request:)`` for a line longer than ``limit``.
    package mutating func split(_ chunk: Data) throws(FetchError) -> [String] {
        var lines: [String] = []
        try split(chunk, into: &lines)
        return lines
    }

    /// Appends the lines that `chunk` completes to `lines`; when a line is too long, the lines before it are
    /// appended before the error is thrown.
    ///
    /// - Throws: ``FetchError/lineTooLong(limit:request:)`` for a line longer than ``limit``; the splitter is then
    ///   empty.
    package mutating func split(_ chunk: Data, into lines: inout [String]) throws(FetchError) {
        let limit = limit
        let tooLong = chunk.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Bool in
            var lineStart = buffer.startIndex
            while let newline = buffer[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                let segment = buffer[lineStart..<newline]
                let endsWithCR = (segment.last ?? partial.last) == UInt8(ascii: "\r")
                guard partial.count + segment.count - (endsWithCR ? 1 : 0) <= limit else {
                    return true
                }
                partial.append(contentsOf: segment)
                lines.append(Self.line(partial))
                partial.removeAll(keepingCapacity: true)
                lineStart = newline + 1
            }
            let rest = buffer[lineStart...]
            // A line that has not ended may hold one byte more than the limit: a CR whose LF is in the next chunk.
            let count = partial.count + rest.count
            guard count <= limit || (count == limit + 1 && (rest.last ?? partial.last) == UInt8(ascii: "\r")) else {
                return true
            }
            partial.append(contentsOf: rest)
            return false
        }
        if tooLong {
            partial = []
            throw FetchError.lineTooLong(limit: limit)
        }
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
