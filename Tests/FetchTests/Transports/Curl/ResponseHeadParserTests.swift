import Fetch
import Foundation
import Testing

@Suite struct ResponseHeadParserTests {
    /// Feeds `head` to a fresh parser line by line (each line with its LF, as libcurl hands them over) and returns
    /// the parser and the progress of the last line, or the failure.
    static func parse(
        _ head: String,
        maximumHeadBytes: Int = ResponseHeadParser.maximumHeadBytes,
        maximumFieldCount: Int = ResponseHeadParser.maximumFieldCount
    ) -> Result<(ResponseHeadParser, [ResponseHeadParser.Progress]), ResponseHeadParser.Failure> {
        var parser = ResponseHeadParser(maximumHeadBytes: maximumHeadBytes, maximumFieldCount: maximumFieldCount)
        var progress: [ResponseHeadParser.Progress] = []
        for line in Data(head.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            let bytes = Data(line) + [0x0A]
            let result = bytes.withUnsafeBytes { buffer in
                Result { () throws(ResponseHeadParser.Failure) in try parser.receive(buffer) }
            }
            switch result {
            case .success(let step):
                progress.append(step)
            case .failure(let failure):
                return .failure(failure)
            }
        }
        return .success((parser, progress))
    }

    @Test func readsTheStatusVersionAndFieldsOfAHead() throws {
        let (parser, progress) = try Self.parse(
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nX-Empty:\r\nX-Spaced:  \t padded \t\r\n\r\n"
        ).get()
        #expect(parser.statusCode == 404)
        #expect(parser.httpVersion == "HTTP/1.1")
        #expect(parser.headerFields == ["Content-Type": "text/plain", "X-Empty": "", "X-Spaced": "padded"])
        #expect(progress == [.inHead, .inHead, .inHead, .inHead, .finalHeadEnded])
        #expect(parser.isComplete)
    }

    @Test func acceptsAnHTTP2StatusLineWithoutAReasonAndAnLFOnlyHead() throws {
        let (http2, _) = try Self.parse("HTTP/2 204 \r\ncontent-length: 0\r\n\r\n").get()
        #expect(http2.statusCode == 204)
        #expect(http2.httpVersion == "HTTP/2")
        let (bare, _) = try Self.parse("HTTP/1.0 200\nServer: old\n\n").get()
        #expect(bare.statusCode == 200)
        #expect(bare.httpVersion == "HTTP/1.0")
        #expect(bare.headerFields == ["Server": "old"])
    }

    @Test(arguments: [
        "HTTP/1.1 99999999999999999999999 x", "HTTP/1.1 2000 OK", "HTTP/1.1 abc OK", "HTTP/1.1 999 Beyond",
        "HTTP/1.1 099 Low", "HTTP/1.1 20 OK", "HTTP/1.1  200 OK", "HTTP/1.1 200OK", "HTTP/x 200 OK", "http/1.1 200 OK",
        "garbage", "", "HTTP/1.1", "X-Field: value",
    ])
    func aStatusLineOutsideItsGrammarIsRefusedAndQuoted(line: String) {
        let result = Self.parse(line + "\r\nContent-Length: 2\r\n\r\n")
        guard case .failure(.invalidStatusLine(let quoted)) = result else {
            Issue.record("\(line.debugDescription) gave \(result)")
            return
        }
        #expect(quoted == line.debugDescription)
    }

    @Test func aLongBadLineIsQuotedTruncatedWithItsLength() {
        let line = "HTTP/1.1 " + String(repeating: "9", count: 500)
        let result = Self.parse(line + "\r\n\r\n")
        guard case .failure(let failure) = result else {
            Issue.record("accepted \(line)")
            return
        }
        let expected = String(line.prefix(ResponseHeadParser.quoteLimit)).debugDescription + "… (509 bytes)"
        #expect(failure == .invalidStatusLine(expected))
        #expect(failure.description.contains(expected))
    }

    @Test func aStatusLineAmongTheFieldsNeverRestartsTheHead() {
        let result = Self.parse(
            "HTTP/1.1 500 Internal Server Error\r\nX-Before: kept\r\nHTTP/1.1 200 OK\r\nX-After: 2\r\n\r\n")
        #expect(result.map { $0.0.statusCode } == .failure(.invalidFieldLine(#""HTTP/1.1 200 OK""#)))
    }

    @Test func aFinalHeadFollowsInformationalHeadsWithItsOwnFields() throws {
        let (parser, progress) = try Self.parse(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 201 Created\r\nX-Final: yes\r\n\r\n"
        ).get()
        #expect(parser.statusCode == 201)
        #expect(parser.headerFields == ["X-Final": "yes"])
        #expect(
            progress.filter { $0 != .inHead } == [.informationalHeadEnded, .informationalHeadEnded, .finalHeadEnded])
    }

    @Test func linesAfterTheFinalHeadAreTrailersThatChangeNothing() throws {
        var (parser, _) = try Self.parse("HTTP/1.1 500 Oops\r\nX-A: 1\r\n\r\n").get()
        for line in ["HTTP/1.1 200 OK\r\n", "X-Trailer: t\r\n", "garbage\r\n", "\r\n"] {
            let progress = try Data(line.utf8).withUnsafeBytes { buffer throws(ResponseHeadParser.Failure) in
                try parser.receive(buffer)
            }
            #expect(progress == .afterHead)
        }
        #expect(parser.statusCode == 500)
        #expect(parser.headerFields == ["X-A": "1"])
    }

    @Test func repeatedFieldsAreJoinedAndKeptInOrder() throws {
        let (parser, _) = try Self.parse(
            "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nVary: Accept\r\nSet-Cookie: b=2\r\n\r\n"
        ).get()
        #expect(parser.headerFields == ["Set-Cookie": "a=1, b=2", "Vary": "Accept"])
        #expect(parser.fieldLines.map { $0.name } == ["Set-Cookie", "Vary", "Set-Cookie"])
        #expect(parser.fieldLines.map { $0.value } == ["a=1", "Accept", "b=2"])
    }

    @Test func anObsFoldContinuesThePreviousValueAfterOneSpace() throws {
        let (parser, _) = try Self.parse(
            "HTTP/1.1 200 OK\r\n \tignored after the status line\r\nX-Folded: first\r\n  second\r\n\tthird\r\n\r\n"
        ).get()
        #expect(parser.headerFields == ["X-Folded": "first second third"])
        #expect(parser.fieldLines.count == 1)
        let (repeated, _) = try Self.parse("HTTP/1.1 200 OK\r\nX-R: a\r\nX-R:\r\n  folded\r\n\r\n").get()
        #expect(repeated.headerFields == ["X-R": "a, folded"])
        #expect(repeated.fieldLines.map { $0.value } == ["a", "folded"])
    }

    @Test(arguments: ["no colon here", ": no name", "Bad Name: x", "Bad/Name: x", "Bad\u{0}Name: x"])
    func aLineThatIsNoFieldMakesTheHeadInvalid(line: String) {
        let result = Self.parse("HTTP/1.1 200 OK\r\n\(line)\r\n\r\n")
        #expect(result.map { $0.0.statusCode } == .failure(.invalidFieldLine(line.debugDescription)))
    }

    @Test func whitespaceBeforeTheColonIsDroppedAndControlsInAValueBecomeSpaces() throws {
        let (parser, _) = try Self.parse(
            "HTTP/1.1 200 OK\r\nX-Name \t: v\r\u{0}w\r\r\nX-Lead:\u{0}\u{0} x\u{0}\r\n\r\n"
        ).get()
        #expect(parser.headerFields == ["X-Name": "v  w", "X-Lead": "x"])
    }

    @Test func aHeadPastTheByteLimitFails() {
        let field = "X-Big: " + String(repeating: "b", count: 100) + "\r\n"
        let head = "HTTP/1.1 200 OK\r\n" + String(repeating: field, count: 10) + "\r\n"
        #expect(Self.parse(head, maximumHeadBytes: head.utf8.count).map { $0.0.statusCode } == .success(200))
        #expect(
            Self.parse(head, maximumHeadBytes: head.utf8.count - 1).map { $0.0.statusCode }
                == .failure(.headTooLarge(limit: head.utf8.count - 1)))
    }

    @Test func informationalHeadsCountTowardTheByteLimit() {
        let early = "HTTP/1.1 103 Early Hints\r\n\r\n"
        let head = String(repeating: early, count: 100) + "HTTP/1.1 200 OK\r\n\r\n"
        #expect(
            Self.parse(head, maximumHeadBytes: 100 * early.utf8.count).map { $0.0.statusCode }
                == .failure(.headTooLarge(limit: 100 * early.utf8.count)))
    }

    @Test func aHeadPastTheFieldLimitFails() {
        let head = "HTTP/1.1 200 OK\r\n" + (0..<11).map { "X-\($0): \($0)\r\n" }.joined() + "\r\n"
        #expect(Self.parse(head, maximumFieldCount: 11).map { $0.0.headerFields.count } == .success(11))
        #expect(Self.parse(head, maximumFieldCount: 10).map { $0.0.statusCode } == .failure(.tooManyFields(limit: 10)))
    }

    @Test func theLimitsAreThoseDocumented() {
        #expect(ResponseHeadParser.maximumHeadBytes == 262_144)
        #expect(ResponseHeadParser.maximumFieldCount == 1_000)
    }
}
