import Fetch
import Foundation

/// The Server-Sent Events parser (`ServerSentEventParser`): any bytes, fed whole, byte by byte, or in splits the input
/// itself chooses, give the same events, the same last event ID, the same reconnection time and the same line-length
/// error (the parser reads with a small limit, so that inputs reach it), and never an event whose id contains NUL.
/// Whatever `retry:` the stream sets, `ReconnectPolicy` waits between its floor and its `maximumDelay`.
package enum ServerSentEventProperties {
    /// Checks the property on `input`: its first byte seeds the split points, the rest is the stream.
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let seed = Int(reader.byte())
        let stream = reader.rest()
        let whole = parse([stream])
        let bytes = parse(stream.map { Data([$0]) })
        guard bytes == whole else {
            return "byte by byte gives \(bytes), whole gives \(whole), for \(stream.debugDescription)"
        }
        var pieces: [Data] = []
        var start = stream.startIndex
        var step = seed % 7 + 1
        while start < stream.endIndex {
            let end = min(stream.endIndex, start + step)
            pieces.append(stream[start..<end])
            start = end
            step = (step * 5 + seed) % 11 + 1
        }
        let split = parse(pieces)
        guard split == whole else {
            return
                "split as \(pieces.map(\.count)) gives \(split), whole gives \(whole), for \(stream.debugDescription)"
        }
        if let event = whole.events.first(where: { $0.id?.contains("\0") == true }) {
            return "an event kept an id with NUL: \(event)"
        }
        if let event = whole.events.first(where: { $0.data.utf8.count > limit * 3 }) {
            // Each byte of data is at most one U+FFFD, three bytes, in the decoded text.
            return "an event kept more data than the limit of \(limit) bytes allows: \(event.data.utf8.count) bytes"
        }
        let retries = whole.events.compactMap(\.retry) + (whole.reconnectionTime.map { [$0] } ?? [])
        for retry in retries {
            if retry < 0 {
                return "a negative retry \(retry)"
            }
            for maximum in [0, 2, 60] as [TimeInterval] {
                for failures in [0, 1, 70] {
                    let delay = ReconnectPolicy(backoff: Backoff(initialDelay: 3, maximumDelay: maximum, jitter: 0))
                        .delay(
                            reconnectionTime: retry, failures: failures)
                    guard delay >= 0.1, delay <= max(0.1, maximum) else {
                        return "retry \(retry) with maximumDelay \(maximum) after \(failures) failures waits \(delay) s"
                    }
                }
            }
        }
        return nil
    }

    /// The parser's limit on a line and an event's data, small enough for fuzzed inputs to pass it.
    private static let limit = 64

    private struct Outcome: Equatable, CustomStringConvertible {
        let events: [ServerSentEvent]
        let lastEventID: String?
        let reconnectionTime: Int?
        /// The error that stopped the parser, as it describes itself.
        let failure: String?

        var description: String {
            "\(events.count) events, last id \(lastEventID.debugDescription), retry \(String(describing: reconnectionTime))"
                + (failure.map { ", then \($0)" } ?? "")
        }
    }

    /// The events of `chunks`, up to the end of the stream or the first line or event over ``limit``.
    private static func parse(_ chunks: [Data]) -> Outcome {
        var parser = ServerSentEventParser(limit: limit)
        var events: [ServerSentEvent] = []
        var failure: String?
        do {
            for chunk in chunks {
                try parser.parse(chunk, into: &events)
            }
        } catch {
            failure = error.description
        }
        parser.finishStream()
        return Outcome(
            events: events, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime,
            failure: failure)
    }
}
