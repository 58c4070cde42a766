import Fetch
import Foundation

/// Response heads (`ResponseHeadParser`), the input split into lines at each LF as libcurl hands them over: any
/// bytes are read without a crash; a head it accepts has a status from 100 to 599; writing the accepted fields out
/// again and reading them gives the same head; a status line among the fields or after the head never changes the
/// status; a parser that keeps no ordered field lines (the transport's) reads the same head; and the limits hold (a
/// parser with smaller ones accepts exactly the heads within them).
package enum ResponseHeadProperties {
    private static let smallByteLimit = 512
    private static let smallFieldLimit = 8

    /// Checks the properties on `input` as the bytes of a response head.
    package static func check(_ input: Data) -> String? {
        let lines = self.lines(input)
        let full = parse(lines)
        let small = parse(lines, maximumHeadBytes: smallByteLimit, maximumFieldCount: smallFieldLimit)
        guard case .success(let parser) = full else {
            if case .success = small {
                return "\(input.debugDescription): a parser with smaller limits accepts a head the default refuses"
            }
            return nil
        }
        guard (100...599).contains(parser.statusCode) else {
            return "\(input.debugDescription): accepted with status \(parser.statusCode)"
        }
        guard parser.fieldLines.count <= ResponseHeadParser.maximumFieldCount,
            parser.headerFields.count <= parser.fieldLines.count
        else {
            return
                "\(input.debugDescription): \(parser.fieldLines.count) field lines, \(parser.headerFields.count) names"
        }
        if let failure = checkLimits(input, lines: lines, accepted: parser, small: small) {
            return failure
        }
        return checkRewrite(input, parser)
    }

    /// The smaller limits refuse a head only when it is past them.
    private static func checkLimits(
        _ input: Data, lines: [Data], accepted: ResponseHeadParser,
        small: Result<ResponseHeadParser, ResponseHeadParser.Failure>
    ) -> String? {
        let bytesRead = lines.prefix(linesRead(lines)).reduce(0) { $0 + $1.count }
        switch small {
        case .success(let parser):
            guard parser.statusCode == accepted.statusCode, parser.headerFields == accepted.headerFields else {
                return "\(input.debugDescription): the parser with smaller limits reads another head"
            }
        case .failure(.headTooLarge), .failure(.tooManyFields):
            if bytesRead <= smallByteLimit, fieldLineCount(lines) <= smallFieldLimit {
                return "\(input.debugDescription): refused by the smaller limits within them"
            }
        case .failure(.trailersTooLarge):
            let trailerBytes = lines.dropFirst(linesRead(lines)).reduce(0) { $0 + $1.count }
            if trailerBytes <= smallByteLimit {
                return "\(input.debugDescription): trailers refused by the smaller limit within it"
            }
        case .failure(let failure):
            return "\(input.debugDescription): the parser with smaller limits fails otherwise: \(failure)"
        }
        return nil
    }

    /// The accepted head written out again reads the same, and a status line among its fields or after it never
    /// gives another status.
    private static func checkRewrite(_ input: Data, _ parser: ResponseHeadParser) -> String? {
        var fields = Data()
        for (name, value) in parser.fieldLines {
            fields.append(contentsOf: Array("\(name): \(value)\r\n".utf8))
        }
        let statusLine = Data("\(parser.httpVersion) \(parser.statusCode) Reason\r\n".utf8)
        let rewritten = statusLine + fields + Data("\r\n".utf8)
        guard case .success(let again) = parse(lines(rewritten)) else {
            return "\(input.debugDescription): the accepted head written out is refused: \(rewritten.debugDescription)"
        }
        guard again.statusCode == parser.statusCode, again.httpVersion == parser.httpVersion,
            again.headerFields == parser.headerFields,
            again.fieldLines.map({ [$0.name, $0.value] }) == parser.fieldLines.map({ [$0.name, $0.value] })
        else {
            return "\(input.debugDescription): the accepted head written out reads otherwise"
        }
        let fake = Data("HTTP/1.1 200 OK\r\n".utf8)
        switch parse(lines(statusLine + fake + fields + Data("\r\n".utf8))) {
        case .success(let injected) where injected.statusCode != parser.statusCode:
            return "\(input.debugDescription): a status line among the fields changed the status"
        default:
            break
        }
        switch parse(lines(rewritten + fake + Data("X-Trailer: t\r\n\r\n".utf8))) {
        case .success(let after)
        where after.statusCode == parser.statusCode && after.headerFields == parser.headerFields:
            return nil
        default:
            return "\(input.debugDescription): a status line after the head changed it"
        }
    }

    /// The input's lines, each with its LF; a last line without one as it is.
    private static func lines(_ data: Data) -> [Data] {
        var lines: [Data] = []
        var start = data.startIndex
        for index in data.indices where data[index] == 0x0A {
            lines.append(data[start...index])
            start = index + 1
        }
        if start < data.endIndex {
            lines.append(data[start...])
        }
        return lines
    }

    /// The lines up to and with the blank line that ends the final head, or all of them.
    private static func linesRead(_ lines: [Data]) -> Int {
        var parser = ResponseHeadParser(maximumHeadBytes: .max, maximumFieldCount: .max)
        for (index, line) in lines.enumerated() {
            let result = line.withUnsafeBytes { buffer in
                Result { () throws(ResponseHeadParser.Failure) in try parser.receive(buffer) }
            }
            if case .success(.finalHeadEnded) = result {
                return index + 1
            }
        }
        return lines.count
    }

    /// How many field lines the heads of an accepted input hold: the lines with a colon that are neither a status
    /// line nor an obs-fold (what the field limit counts).
    private static func fieldLineCount(_ lines: [Data]) -> Int {
        lines.prefix(linesRead(lines)).count { line in
            guard let first = line.first else {
                return false
            }
            return first != 0x20 && first != 0x09 && line.contains(0x3A) && !line.starts(with: Array("HTTP/".utf8))
        }
    }

    /// The head `lines` give: the parser after every line, once its final head ended, or its failure; a head that
    /// never ends (the input ran out) is refused as a status line of nothing would be.
    private static func parse(
        _ lines: [Data],
        maximumHeadBytes: Int = ResponseHeadParser.maximumHeadBytes,
        maximumFieldCount: Int = ResponseHeadParser.maximumFieldCount
    ) -> Result<ResponseHeadParser, ResponseHeadParser.Failure> {
        var parser = ResponseHeadParser(maximumHeadBytes: maximumHeadBytes, maximumFieldCount: maximumFieldCount)
        for line in lines {
            let wasComplete = parser.isComplete
            let result = line.withUnsafeBytes { buffer in
                Result { () throws(ResponseHeadParser.Failure) in try parser.receive(buffer) }
            }
            switch result {
            case .failure(let failure):
                return .failure(failure)
            case .success(let progress):
                if wasComplete, progress != .afterHead {
                    return .failure(.invalidFieldLine("(a line after the head was read as \(progress))"))
                }
            }
        }
        guard parser.isComplete else {
            return .failure(.invalidStatusLine("(the head did not end)"))
        }
        return .success(parser)
    }
}
