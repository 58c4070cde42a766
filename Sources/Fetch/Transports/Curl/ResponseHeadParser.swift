/// Reads a response head line by line, as libcurl's header callback hands it over: the status line, the header
/// fields, the blank line that ends the head, and again for the final head after any 1xx head.
///
/// The first line of each head is its status line (RFC 9112 §4: `HTTP-version SP 3DIGIT SP reason`, the reason
/// optional, as libcurl writes an HTTP/2 status); the lines after it are field lines and never start a head again,
/// whatever they hold. A 1xx head (100 Continue, 103 Early Hints) is followed by another head, whose fields replace
/// its own. What RFC 9112 leaves to the recipient is decided so:
/// - a field line without a colon, or whose name is not a token, makes the response invalid (libcurl 7.88 rejects
///   the first itself); whitespace between the name and the colon is dropped, as RFC 9112 §5.1 tells a proxy to;
/// - an obs-fold line (RFC 9112 §5.2) continues the previous field's value after one space; one right after the
///   status line is ignored (RFC 9112 §2.2);
/// - CR, LF and NUL inside a value become spaces (RFC 9110 §5.5);
/// - the lines after the final head (trailer fields) are not merged into it (RFC 9110 §6.5.1).
///
/// The heads of one response may hold at most ``maximumHeadBytes`` bytes and ``maximumFieldCount`` field lines in
/// all, 1xx heads included: past either, the parser fails, so that no server can grow it without bound.
///
/// A pure value, compiled on every platform so that its fuzz target runs everywhere; it works on bytes, without
/// Foundation, since it runs for every header line of every response.
package struct ResponseHeadParser: Sendable {
    /// The most bytes the heads of one response may hold, every line and line end counted: 256 KiB, Chrome's limit,
    /// and below libcurl's own 300 KB, so that the error is Fetch's and says so.
    package static let maximumHeadBytes = 256 * 1024

    /// The most field lines the heads of one response may hold.
    package static let maximumFieldCount = 1_000

    /// How much of a bad line an error quotes.
    package static let quoteLimit = 80

    /// What a line did.
    package enum Progress: Equatable, Sendable {
        /// The head goes on.
        case inHead
        /// A 1xx head ended: another head follows.
        case informationalHeadEnded
        /// The final head ended: the body follows.
        case finalHeadEnded
        /// A line after the final head (a trailer field), which the parser ignores.
        case afterHead
    }

    /// Why a head is not accepted.
    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// A head's first line is not a status line; the line as quoted by ``quote(_:)``.
        case invalidStatusLine(String)
        /// A field line is not `name: value`; the line as quoted by ``quote(_:)``.
        case invalidFieldLine(String)
        /// The heads grew past `limit` bytes.
        case headTooLarge(limit: Int)
        /// The heads hold more than `limit` field lines.
        case tooManyFields(limit: Int)
        /// The final head's `Content-Length` is not one valid length (RFC 9112 §6.3); the value as received.
        case invalidContentLength(String)
        /// The trailer fields after the final head grew past `limit` bytes.
        case trailersTooLarge(limit: Int)
        /// The connection ended before the final head did.
        case headCutShort

        /// What the server sent, in words: the message of the error a transfer ends with.
        package var description: String {
            switch self {
            case .invalidStatusLine(let line):
                "the server answered with the status line \(line), not an HTTP version, a space, a status code from "
                    + "100 to 599 and a reason"
            case .invalidFieldLine(let line):
                "the server's response head has the line \(line), which is not a header field (name: value)"
            case .headTooLarge(let limit):
                "the server's response head is larger than \(limit) bytes, Fetch's limit: Fetch stopped reading it there"
            case .tooManyFields(let limit):
                "the server's response head has more than \(limit) header fields, Fetch's limit: Fetch stopped "
                    + "reading it there"
            case .invalidContentLength(let value):
                "the server's Content-Length \(value.prefix(ResponseHeadParser.quoteLimit).debugDescription) is not "
                    + "one length in bytes, so where its body ends is unknown (RFC 9112 §6.3)"
            case .trailersTooLarge(let limit):
                "the trailer fields after the server's body are larger than \(limit) bytes, Fetch's limit: Fetch "
                    + "stopped reading them there"
            case .headCutShort:
                "the server closed the connection before its response head ended"
            }
        }
    }

    private enum State: Sendable {
        case statusLine
        case fields
        case complete
    }

    private var state = State.statusLine
    private let byteLimit: Int
    private let fieldLimit: Int
    private var byteCount = 0
    private var fieldCount = 0

    /// The status code of the head read last, or 0 before its status line.
    package private(set) var statusCode = 0

    /// The HTTP version the status line named: `HTTP/1.1`, `HTTP/2`.
    package private(set) var httpVersion = "HTTP/1.1"

    /// The header fields of the head read last, in the order received, names as sent, each repeated name once per
    /// line.
    package private(set) var fieldLines: [(name: String, value: String)] = []

    /// The same fields by name as sent; a name repeated in one spelling has its values joined with `, `.
    package var headerFields: [String: String] { HeaderFields(fieldLines).dictionary }

    /// Whether the final head has ended.
    package var isComplete: Bool { state == .complete }

    /// A parser for the heads of one response, at most `maximumHeadBytes` bytes and `maximumFieldCount` fields.
    package init(maximumHeadBytes: Int = Self.maximumHeadBytes, maximumFieldCount: Int = Self.maximumFieldCount) {
        byteLimit = maximumHeadBytes
        fieldLimit = maximumFieldCount
        // One allocation for a typical head, instead of growing field by field.
        fieldLines.reserveCapacity(16)
    }

    /// Reads one line, with its line end (CR LF or LF) or without.
    ///
    /// - Throws: ``Failure`` when the line makes the head invalid or too large. The parser is then not to be used.
    package mutating func receive(_ line: UnsafeRawBufferPointer) throws(Failure) -> Progress {
        // Trailer fields count too, against a budget of their own: libcurl holds them while it reads them.
        byteCount += line.count  // no overflow: it is checked against the limit line by line
        guard state != .complete else {
            guard byteCount <= byteLimit else {
                throw .trailersTooLarge(limit: byteLimit)
            }
            return .afterHead
        }
        guard byteCount <= byteLimit else {
            throw .headTooLarge(limit: byteLimit)
        }
        var end = line.count
        if end > 0, line[end - 1] == 0x0A {
            end -= 1
            if end > 0, line[end - 1] == 0x0D {
                end -= 1
            }
        }
        let content = UnsafeRawBufferPointer(rebasing: line[0..<end])
        switch state {
        case .statusLine:
            try readStatusLine(content)
            return .inHead
        case .fields:
            guard !content.isEmpty else {
                if (100...199).contains(statusCode) {
                    state = .statusLine
                    return .informationalHeadEnded
                }
                try checkContentLength()
                state = .complete
                byteCount = 0  // the trailers' budget starts
                return .finalHeadEnded
            }
            try readFieldLine(content)
            return .inHead
        case .complete:
            return .afterHead
        }
    }

    /// `HTTP/` DIGIT [`.` DIGIT] SP 3DIGIT [SP reason]: the reason's content is ignored (RFC 9112 §4).
    private mutating func readStatusLine(_ line: UnsafeRawBufferPointer) throws(Failure) {
        guard line.count >= 10, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F,
            Self.isDigit(line[5])
        else {
            throw .invalidStatusLine(Self.quote(line))
        }
        var index = 6
        if line[index] == 0x2E {
            guard Self.isDigit(line[index + 1]) else {
                throw .invalidStatusLine(Self.quote(line))
            }
            index += 2
        }
        let versionEnd = index
        guard index + 4 <= line.count, line[index] == 0x20,
            let code = WireNumber.statusCode(UnsafeRawBufferPointer(rebasing: line[(index + 1)..<(index + 4)])),
            index + 4 == line.count || line[index + 4] == 0x20
        else {
            throw .invalidStatusLine(Self.quote(line))
        }
        statusCode = code
        httpVersion = Self.version(UnsafeRawBufferPointer(rebasing: line[0..<versionEnd]))
        fieldLines.removeAll(keepingCapacity: true)
        state = .fields
    }

    private mutating func readFieldLine(_ line: UnsafeRawBufferPointer) throws(Failure) {
        if Self.isSpace(line[0]) {
            unfold(line)
            return
        }
        guard let colon = line.firstIndex(of: 0x3A) else {
            throw .invalidFieldLine(Self.quote(line))
        }
        var nameEnd = colon
        while nameEnd > 0, Self.isSpace(line[nameEnd - 1]) { nameEnd -= 1 }
        guard nameEnd > 0, Self.isToken(UnsafeRawBufferPointer(rebasing: line[0..<nameEnd])) else {
            throw .invalidFieldLine(Self.quote(line))
        }
        fieldCount += 1
        guard fieldCount <= fieldLimit else {
            throw .tooManyFields(limit: fieldLimit)
        }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<nameEnd]), as: UTF8.self)
        let value = Self.value(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
        fieldLines.append((name, value))
    }

    /// Fails the final head when it has a `Content-Length` that is not one valid length: every field of that name,
    /// whatever its case, must give the same length (the fields of one spelling joined with `, `, as one value).
    private func checkContentLength() throws(Failure) {
        let isLength = { (field: (name: String, value: String)) in
            field.name.utf8.count == 14 && HeaderName.equal(field.name, "Content-Length")
        }
        guard let first = fieldLines.firstIndex(where: isLength) else {
            return
        }
        let value: String
        if !fieldLines[(first + 1)...].contains(where: isLength) {
            value = fieldLines[first].value  // the usual head: one field, read without a table
        } else {
            var bySpelling: [String: String] = [:]
            for field in fieldLines where isLength(field) {
                if let existing = bySpelling.updateValue(field.value, forKey: field.name) {
                    bySpelling[field.name] = existing + ", " + field.value
                }
            }
            // In a fixed order, so that the error quotes the same value whichever order the dictionary holds them in.
            let lengths = Array(bySpelling.values)
            value = lengths.count == 1 ? lengths[0] : lengths.sorted().joined(separator: ", ")
        }
        if WireNumber.contentLength(value) == nil {
            throw .invalidContentLength(value)
        }
    }

    /// An obs-fold line: the previous field's value continues after one space.
    private mutating func unfold(_ line: UnsafeRawBufferPointer) {
        guard let last = fieldLines.indices.last else {
            return  // whitespace right after the status line: consumed without further processing
        }
        let more = Self.value(line)
        guard !more.isEmpty else {
            return
        }
        // The fold continues the previous line's value, after a space unless that value is empty.
        let previous = fieldLines[last].value
        fieldLines[last].value = previous.isEmpty ? more : previous + " " + more
    }

    // MARK: - Bytes

    /// A field value: CR, LF and NUL as spaces, and without spaces and tabs at either end.
    private static func value(_ bytes: UnsafeRawBufferPointer) -> String {
        var lower = 0
        var upper = bytes.count
        while lower < upper, isSpace(bytes[lower]) || isControl(bytes[lower]) { lower += 1 }
        while upper > lower, isSpace(bytes[upper - 1]) || isControl(bytes[upper - 1]) { upper -= 1 }
        let trimmed = UnsafeRawBufferPointer(rebasing: bytes[lower..<upper])
        guard trimmed.contains(where: isControl) else {
            return String(decoding: trimmed, as: UTF8.self)
        }
        return String(decoding: trimmed.map { isControl($0) ? 0x20 : $0 }, as: UTF8.self)
    }

    /// CR, LF or NUL: what RFC 9110 §5.5 lets a recipient read as a space in a field value.
    private static func isControl(_ byte: UInt8) -> Bool {
        byte == 0x0D || byte == 0x0A || byte == 0x00
    }

    /// The version's text, without an allocation for the usual ones.
    private static func version(_ bytes: UnsafeRawBufferPointer) -> String {
        if bytes.count == 8, bytes[5] == 0x31, bytes[6] == 0x2E, bytes[7] == 0x31 {  // "HTTP/" is checked: "1.1"
            return "HTTP/1.1"
        }
        if bytes.count == 6, bytes[5] == 0x32 {  // "2"
            return "HTTP/2"
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `line` for an error message: at most ``quoteLimit`` bytes, in quotes, control characters escaped.
    package static func quote(_ line: UnsafeRawBufferPointer) -> String {
        let shown = String(decoding: UnsafeRawBufferPointer(rebasing: line.prefix(quoteLimit)), as: UTF8.self)
        let cut = line.count > quoteLimit ? "… (\(line.count) bytes)" : ""
        return shown.debugDescription + cut
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }

    /// Whether every byte is an RFC 9110 §5.6.2 tchar.
    private static func isToken(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy(HeaderName.isTokenByte)
    }
}
