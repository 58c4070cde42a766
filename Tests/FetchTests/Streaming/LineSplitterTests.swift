import Foundation
import Testing

@testable import Fetch

@Suite struct LineSplitterTests {
    static func lines(_ input: [UInt8], in sizes: [Int]) -> [String] {
        var splitter = LineSplitter()
        var lines: [String] = []
        var start = 0
        for size in sizes {
            lines += splitter.split(Data(input[start..<start + size]))
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
}
