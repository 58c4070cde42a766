import Fetch
import Foundation
import Testing

/// One test per rule of the WHATWG HTML "Interpreting an event stream" algorithm. Each input is parsed whole, byte by
/// byte and in random splits, and every way must give the same events.
@Suite struct ServerSentEventParserTests {
    /// The events of `input`, after checking that every way of splitting it gives the same ones.
    func events(_ input: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [ServerSentEvent] {
        let whole = Self.parse(input, in: [input.count])
        let byteByByte = Self.parse(input, in: Array(repeating: 1, count: input.count))
        #expect(byteByByte == whole, "byte by byte", sourceLocation: sourceLocation)
        var generator = SplitMix(seed: UInt64(input.count))
        for round in 0..<50 {
            let sizes = Self.randomSizes(total: input.count, using: &generator)
            #expect(Self.parse(input, in: sizes) == whole, "split \(round): \(sizes)", sourceLocation: sourceLocation)
        }
        return whole
    }

    func events(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [ServerSentEvent] {
        events(Array(text.utf8), sourceLocation: sourceLocation)
    }

    static func parse(_ input: [UInt8], in sizes: [Int]) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        var start = 0
        for size in sizes {
            do {
                events += try parser.parse(Data(input[start..<start + size]))
            } catch {
                Issue.record(error)
            }
            start += size
        }
        parser.finishStream()
        return events
    }

    static func randomSizes(total: Int, using generator: inout SplitMix) -> [Int] {
        var sizes: [Int] = []
        var left = total
        while left > 0 {
            let size = Int.random(in: 1...max(1, min(left, 7)), using: &generator)
            sizes.append(size)
            left -= size
        }
        return sizes
    }

    @Test func aLeadingByteOrderMarkIsStrippedOnce() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(events(bom + Array("data: a\n\n".utf8)) == [ServerSentEvent(data: "a")])
        // A second BOM is part of the first field's name, which is then no known field.
        #expect(events(bom + bom + Array("data: a\n\n".utf8)) == [])
        // Bytes that begin like a BOM but are not one are kept.
        #expect(events([0xEF, 0xBB] + Array("data: a\n\n".utf8)) == [])
        #expect(events(bom + Array("data: \u{FEFF}x\n\n".utf8)) == [ServerSentEvent(data: "\u{FEFF}x")])
    }

    @Test func crLfAndCrlfAllEndALine() {
        let expected = [ServerSentEvent(data: "a\nb\nc"), ServerSentEvent(data: "d")]
        #expect(events("data: a\rdata: b\ndata: c\r\n\r\ndata: d\r\r") == expected)
        #expect(events("data: a\r\ndata: b\r\ndata: c\r\n\r\ndata: d\n\n") == expected)
        // CR LF is one line end, never a blank line: the event is not dispatched twice.
        #expect(events("data: x\r\n\r\n") == [ServerSentEvent(data: "x")])
        // LF CR is two line ends.
        #expect(events("data: x\n\rdata: y\n\n") == [ServerSentEvent(data: "x"), ServerSentEvent(data: "y")])
    }

    @Test func aCrlfSplitBetweenTwoChunksEndsOneLine() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Data("data: a\r".utf8)) == [])
        // The LF completes the CR's line end; the next CR LF is the blank line.
        #expect(try parser.parse(Data("\ndata: b\r".utf8)) == [])
        #expect(try parser.parse(Data("\n\r".utf8)) == [ServerSentEvent(data: "a\nb")])
        #expect(try parser.parse(Data("\n".utf8)) == [])
    }

    @Test func linesStartingWithAColonAreComments() {
        #expect(events(": keep-alive\n\n:\ndata: a\n: between\ndata: b\n\n") == [ServerSentEvent(data: "a\nb")])
    }

    @Test func oneSpaceAfterTheColonIsStripped() {
        #expect(events("data:a\n\n") == [ServerSentEvent(data: "a")])
        #expect(events("data: a\n\n") == [ServerSentEvent(data: "a")])
        #expect(events("data:  a \n\n") == [ServerSentEvent(data: " a ")])
        #expect(events("event:  spaced\ndata\n\n") == [ServerSentEvent(event: " spaced", data: "")])
        #expect(events("data:\ta\n\n") == [ServerSentEvent(data: "\ta")])
    }

    @Test func severalDataLinesJoinWithLineFeeds() {
        #expect(
            events("data: first\ndata: second\ndata\ndata: fourth\n\n") == [
                ServerSentEvent(data: "first\nsecond\n\nfourth")
            ])
        #expect(events("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
    }

    @Test func aFieldWithoutAColonHasAnEmptyValue() {
        #expect(events("data\n\n") == [ServerSentEvent(data: "")])
        #expect(
            events("id: 1\ndata: a\n\nid\ndata: b\n\n") == [
                ServerSentEvent(id: "1", data: "a"), ServerSentEvent(id: nil, data: "b"),
            ])
        #expect(events("event: custom\nevent\ndata: a\n\n") == [ServerSentEvent(event: "message", data: "a")])
    }

    @Test func anIDContainingNULIsIgnored() {
        #expect(
            events("id: 7\ndata: a\n\nid: 8\u{0}9\ndata: b\n\n") == [
                ServerSentEvent(id: "7", data: "a"), ServerSentEvent(id: "7", data: "b"),
            ])
    }

    @Test func aRetryThatIsNotAllDigitsIsIgnored() throws {
        #expect(events("retry: 1500\ndata: a\n\n") == [ServerSentEvent(data: "a", retry: 1500)])
        #expect(
            events("retry: 15s\ndata: a\n\nretry: -1\ndata: b\n\nretry: 1.5\ndata: c\n\nretry:\ndata: d\n\n") == [
                ServerSentEvent(data: "a"), ServerSentEvent(data: "b"), ServerSentEvent(data: "c"),
                ServerSentEvent(data: "d"),
            ])
        var parser = ServerSentEventParser()
        _ = try parser.parse(Data("retry: 2000\n\nretry: 20 00\n\nretry: x\n\n".utf8))
        #expect(parser.reconnectionTime == 2000)
    }

    @Test func aBlankLineDispatchesAndNotWhenTheDataIsEmpty() {
        #expect(events("data: a\n") == [])
        #expect(events("event: ping\n\nid: 3\n\nretry: 10\n\n") == [])
        // The event type of a block without data does not carry over to the next event.
        #expect(events("event: ping\n\ndata: a\n\n") == [ServerSentEvent(data: "a")])
        // The event type and data are reset after each dispatch; unknown fields are ignored.
        #expect(
            events("event: update\nfoo: bar\ndata: 1\n\ndata: 2\n\n") == [
                ServerSentEvent(event: "update", data: "1"), ServerSentEvent(data: "2"),
            ])
    }

    @Test func theLastEventIDPersistsAcrossEvents() throws {
        #expect(
            events("id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\n") == [
                ServerSentEvent(id: "1", data: "a"), ServerSentEvent(id: "1", data: "b"),
                ServerSentEvent(id: "2", data: "c"),
            ])
        var parser = ServerSentEventParser()
        _ = try parser.parse(Data("id: 1\ndata: a\n\nid: 2\n\n".utf8))
        #expect(parser.lastEventID == "2")
    }

    @Test func anUnterminatedEventAtTheEndIsDiscarded() throws {
        var parser = ServerSentEventParser()
        #expect(
            try parser.parse(Data("id: 1\ndata: a\n\nid: 2\ndata: cut".utf8)) == [ServerSentEvent(id: "1", data: "a")])
        parser.finishStream()
        // The id of the discarded event was never dispatched; a new connection starts clean.
        #expect(parser.lastEventID == "1")
        #expect(try parser.parse(Data("data: b\n\n".utf8)) == [ServerSentEvent(id: "1", data: "b")])
        #expect(events("data: a\n\ndata: b") == [ServerSentEvent(data: "a")])
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        #expect(
            events([UInt8]("data: a".utf8) + [0xFF, 0xC3] + [UInt8]("\n\n".utf8)) == [
                ServerSentEvent(data: "a\u{FFFD}\u{FFFD}")
            ])
        #expect(events("data: é 🎉\n\n") == [ServerSentEvent(data: "é 🎉")])
    }

    @Test func decodingTheDataIsOneCallAndItsErrorNamesTheEvent() throws {
        struct Message: Decodable, Equatable {
            let text: String
        }
        let event = ServerSentEvent(id: "4", event: "chat", data: #"{"text":"hi"}"#)
        #expect(try event.decode(Message.self) == Message(text: "hi"))
        let broken = ServerSentEvent(id: "5", event: "chat", data: #"{"txt":"hi"}"#)
        let error = try #require(throws: FetchError.self) { try broken.decode(Message.self) }
        #expect(error.description.contains(#"event "chat" (id "5")"#))
        #expect(error.description.contains(#"missing key "text""#))
        #expect(error.description.contains(#"{"txt":"hi"}"#))
    }

    @Test func aRetryTooLargeForAnIntIsReadAsTheLargestInt() throws {
        #expect(events("retry: 9999999999999\ndata: a\n\n") == [ServerSentEvent(data: "a", retry: 9_999_999_999_999)])
        var parser = ServerSentEventParser()
        let huge = try parser.parse(Data("retry: 99999999999999999999999999999999\ndata: b\n\n".utf8))
        #expect(huge == [ServerSentEvent(data: "b", retry: .max)])
        #expect(parser.reconnectionTime == .max)
    }

    @Test func aLineLongerThanTheLimitIsAnErrorAfterTheEventsBeforeIt() throws {
        var parser = ServerSentEventParser(limit: 16)
        var events: [ServerSentEvent] = []
        let error = #expect(throws: FetchError.self) {
            try parser.parse(
                Data("id: 1\ndata: short\n\n: a comment much longer than sixteen bytes\n".utf8), into: &events)
        }
        guard case .lineTooLong(16, nil) = error.fetchKind else {
            Issue.record("expected lineTooLong(limit: 16), got \(String(describing: error))")
            return
        }
        #expect(events == [ServerSentEvent(id: "1", data: "short")])
        // The parser reads on as at the start of a new connection, with the last event ID.
        #expect(try parser.parse(Data("data: next\n\n".utf8)) == [ServerSentEvent(id: "1", data: "next")])
    }

    @Test func aLineThatNeverEndsFailsBeforeTheParserHoldsMoreThanTheLimit() {
        var parser = ServerSentEventParser(limit: 1000)
        var accepted = 0
        var failure: FetchError?
        for chunk in [Data("data: ".utf8)] + Array(repeating: Data(repeating: 0x78, count: 100), count: 20) {
            do {
                _ = try parser.parse(chunk)
                accepted += chunk.count
            } catch {
                failure = error as? FetchError
                break
            }
        }
        guard case .lineTooLong(1000, nil) = failure.fetchKind else {
            Issue.record("expected lineTooLong(limit: 1000), got \(String(describing: failure))")
            return
        }
        #expect(accepted <= 1000)
    }

    @Test func anEventWhoseDataLinesAddUpToMoreThanTheLimitIsAnError() throws {
        var parser = ServerSentEventParser(limit: 16)
        // 10 bytes, then 1 + 5, is 16: the limit, which passes.
        #expect(
            try parser.parse(Data("data: 0123456789\ndata: 01234\n\n".utf8)) == [
                ServerSentEvent(data: "0123456789\n01234")
            ])
        #expect(throws: FetchError.self) {
            try parser.parse(Data("data: 0123456789\ndata: 012345\n\n".utf8))
        }
        // Every line is short; the event is not.
        var many = ServerSentEventParser(limit: 16)
        #expect(throws: FetchError.self) {
            try many.parse(Data(String(repeating: "data\n", count: 20).utf8))
        }
    }

    @Test func theLineLengthErrorNamesTheRequestAndTheLimit() {
        let request = TestRequest(URL(string: "http://127.0.0.1:9/events")!)
        let message = FetchError.lineTooLong(limit: ResponseStream.maximumLineLength).naming(request).description
        #expect(message.contains("GET http://127.0.0.1:9/events"))
        #expect(message.contains("1048576 bytes"))
    }
}

/// A small seeded generator, so that a failing split can be reproduced.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
