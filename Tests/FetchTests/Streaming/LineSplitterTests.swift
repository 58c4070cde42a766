import Foundation
import Testing

@testable import Fetch

@Suite struct LineSplitterTests {
    static func lines(_ input: [UInt8], in sizes: [Int]) -> [String] {
        var splitter = LineSplitter()
        var lines: [String] = []
        var start = 0
        for size in sizes {
            do {
                lines += try splitter.split(Data(input[start..<start + size]))
            } catch {
                Issue.record(error)
            }
            start += size
        }
        if let last = splitter.finish() {
            lines.append(last)
        }
        return lines
    }

    @Test func splitsOnLFAndCRLFWhereverTheChunksAreSplit() {
        let input = Array("first\nsecond\r\nthird has a \r inside\r\n\nlast é🎉".utf8)
        let expected = ["first", "second", "third has a \r inside", "", "last é🎉"]
        #expect(Self.lines(input, in: [input.count]) == expected)
        #expect(Self.lines(input, in: Array(repeating: 1, count: input.count)) == expected)
        var generator = SplitMix(seed: 7)
        for _ in 0..<50 {
            let sizes = ServerSentEventParserTests.randomSizes(total: input.count, using: &generator)
            #expect(Self.lines(input, in: sizes) == expected, "\(sizes)")
        }
    }

    @Test func aFinalLineEndingAddsNoEmptyLine() {
        let input = Array("a\nb\n".utf8)
        #expect(Self.lines(input, in: [input.count]) == ["a", "b"])
    }

    @Test func aLineOfTheLimitPassesAndOneByteMoreIsAnError() throws {
        var splitter = LineSplitter(limit: 4)
        // A CRLF split between chunks: the CR may wait past the limit for its LF.
        #expect(try splitter.split(Data("abcd\r".utf8)) == [])
        #expect(try splitter.split(Data("\nwxyz\n".utf8)) == ["abcd", "wxyz"])
        #expect(throws: FetchError.self) {
            try splitter.split(Data("abcde\n".utf8))
        }
    }

    @Test func aLineThatNeverEndsFailsBeforeTheSplitterHoldsMoreThanTheLimit() {
        let limit = 1000
        var splitter = LineSplitter(limit: limit)
        var lines: [String] = []
        var fed = 0
        var failure: FetchError?
        // The line before it arrives in the same chunk as the start of the endless one.
        let chunks =
            [Data("first\n".utf8) + Data(repeating: 0x78, count: 300)]
            + Array(repeating: Data(repeating: 0x78, count: 300), count: 10)
        for chunk in chunks {
            do {
                try splitter.split(chunk, into: &lines)
                fed += chunk.count
            } catch {
                failure = error
                break
            }
        }
        guard case .lineTooLong(limit, nil) = failure.fetchKind else {
            Issue.record("expected lineTooLong(limit: \(limit)), got \(String(describing: failure))")
            return
        }
        #expect(lines == ["first"])
        // Fed whole, the chunks before the error held at most the limit; the one that would pass it is refused.
        #expect(fed - "first\n".utf8.count <= limit)
        #expect(splitter.finish() == nil)
    }
}
