import Fetch
import Foundation

/// The Server-Sent Events parser (`ServerSentEventParser`): any bytes, fed whole, byte by byte, or in splits the input
/// itself chooses, give the same events, the same last event ID and the same reconnection time, and never an event
/// whose id contains NUL.
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
        return nil
    }

    private struct Outcome: Equatable, CustomStringConvertible {
        let events: [ServerSentEvent]
        let lastEventID: String?
        let reconnectionTime: Int?

        var description: String {
            "\(events.count) events, last id \(lastEventID.debugDescription), retry \(String(describing: reconnectionTime))"
        }
    }

    private static func parse(_ chunks: [Data]) -> Outcome {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks {
            events += parser.parse(chunk)
        }
        parser.finishStream()
        return Outcome(events: events, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime)
    }
}
