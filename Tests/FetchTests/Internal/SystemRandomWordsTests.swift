import Testing

@testable import Fetch

@Suite struct SystemRandomWordsTests {
    /// Two equal words in a few dozen from a 64-bit generator would be a 1 in 10^16 chance: equal ones mean words
    /// handed out twice, or a buffer handed out before it was read.
    @Test(arguments: [0, 1, 3, 4, 100, -1])
    func everyWordIsFreshWhateverIsReadAhead(prefetching count: Int) {
        var generator = SystemRandomWords(prefetching: count)
        let words = (0..<12).map { _ in generator.next() }
        #expect(Set(words).count == words.count)
        #expect(!words.contains(0))
    }

    @Test func twoGeneratorsReadDifferentWords() {
        var first = SystemRandomWords(prefetching: SystemRandomWords.maximumPrefetch)
        var second = SystemRandomWords(prefetching: SystemRandomWords.maximumPrefetch)
        let words = (0..<SystemRandomWords.maximumPrefetch).flatMap { _ in [first.next(), second.next()] }
        #expect(Set(words).count == words.count)
    }
}
