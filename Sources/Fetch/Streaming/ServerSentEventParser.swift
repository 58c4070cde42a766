import Foundation

/// Reads ``ServerSentEvent``s from the bytes of a `text/event-stream`, chunk by chunk, exactly as the WHATWG HTML
/// standard's "Interpreting an event stream" says, wherever the chunks happen to be split.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in stream {
///     for event in try parser.parse(chunk) {
///         print(event.data)
///     }
/// }
/// ```
///
/// - A leading UTF-8 byte order mark is skipped; CR, LF and CRLF all end a line, even when a CRLF is split between
///   two chunks.
/// - A line starting with `:` is a comment. A line without a colon is a field with an empty value; one space after
///   the colon is not part of the value.
/// - `data:` lines join with `"\n"`; an `id:` value containing NUL is ignored; a `retry:` value that is not all ASCII
///   digits is ignored, and one too large for an `Int` is read as `Int.max` (``ReconnectPolicy`` bounds the wait it
///   asks for); other fields are ignored.
/// - A blank line dispatches the event, unless its data is empty. The last event ID carries over to later events.
/// - ``finishStream()`` discards an event that no blank line ended, and readies the parser for a new connection of
///   the same event source, keeping ``lastEventID`` and ``reconnectionTime``.
/// - A line longer than 1 MiB, or an event whose `data:` lines add up to more,
///   is an error (``FetchError/lineTooLong(limit:request:)``), so that the parser's memory stays bounded whatever the
///   stream holds.
package struct ServerSentEventParser: Sendable {
    /// The event source's last event ID: set when an event block ends (even one without data), `nil` when empty.
    /// A reconnection sends it as `Last-Event-ID`.
    package private(set) var lastEventID: String?

    /// The reconnection time the stream last set with a valid `retry:` field, in milliseconds.
    package private(set) var reconnectionTime: Int?

    /// The bytes of the line being read, once the start of the stream (and its byte order mark) is behind.
    private var line: [UInt8] = []
    /// The bytes at the start of a stream, while they could still be the beginning of a byte order mark.
    private var start: [UInt8] = []
    private var isPastStart = false
    /// Whether the last byte read was a CR, so that an LF right after it ends no second line.
    private var endedWithCR = false

    private var dataBuffer = ""
    private var hasData = false
    private var eventTypeBuffer = ""
    private var lastEventIDBuffer = ""
    private var retryInBlock: Int?
    /// The bytes of the `data:` values in `dataBuffer` and the line feeds between them, as they came.
    private var dataByteCount = 0
    /// The longest line, and the most data of one event, in bytes.
    private let limit: Int

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// Creates a parser at the start of a stream.
    ///
    /// - Parameter lastEventID: The last event ID of an earlier connection of the same event source, if any.
    package init(lastEventID: String? = nil) {
        self.init(lastEventID: lastEventID, limit: ResponseStream.maximumLineLength)
    }

    /// A parser whose lines, and events' data, are at most `limit` bytes: for tests of the limit.
    package init(lastEventID: String? = nil, limit: Int) {
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = lastEventID ?? ""
        self.limit = max(1, limit)
    }

    /// Reads the next chunk of the stream.
    ///
    /// - Parameter chunk: The bytes that arrived, in order.
    /// - Returns: The events that the chunk completed, in order; often none.
    /// - Throws: ``FetchError/lineTooLong(limit:request:)`` when a line, or the data of the event being read, grows
    ///   past 1 MiB. The events the chunk completed before are lost, and the
    ///   parser reads what comes next as the start of a new connection's stream (see ``finishStream()``).
    package mutating func parse<Bytes: Sequence<UInt8>>(_ chunk: Bytes) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        try parse(chunk, into: &events)
        return events
    }

    /// Appends the events that `chunk` completes to `events`; when a line or an event is too long, the events
    /// before it are appended before the error is thrown, and the parser is left as ``finishStream()`` leaves it.
    package mutating func parse<Bytes: Sequence<UInt8>>(
        _ chunk: Bytes, into events: inout [ServerSentEvent]
    ) throws(FetchError) {
        do {
            try read(chunk, into: &events)
        } catch {
            finishStream()
            throw error
        }
    }

    private mutating func read<Bytes: Sequence<UInt8>>(
        _ chunk: Bytes, into events: inout [ServerSentEvent]
    ) throws(FetchError) {
        for byte in chunk {
            if !isPastStart {
                start.append(byte)
                if Self.byteOrderMark.starts(with: start) {
                    guard start.count == Self.byteOrderMark.count else {
                        continue
                    }
                    isPastStart = true
                    start = []
                    continue
                }
                isPastStart = true
                let pending = start
                start = []
                for byte in pending {
                    try read(byte, into: &events)
                }
                continue
            }
            try read(byte, into: &events)
        }
    }

    /// Ends the current connection's stream: an event that no blank line ended is discarded, and the parser reads
    /// the next connection's stream from its start (byte order mark included), with the same ``lastEventID`` and
    /// ``reconnectionTime``.
    package mutating func finishStream() {
        self = ServerSentEventParser(lastEventID: lastEventID, reconnectionTime: reconnectionTime, limit: limit)
    }

    private init(lastEventID: String?, reconnectionTime: Int?, limit: Int) {
        self.init(lastEventID: lastEventID, limit: limit)
        self.reconnectionTime = reconnectionTime
    }

    private mutating func read(_ byte: UInt8, into events: inout [ServerSentEvent]) throws(FetchError) {
        switch byte {
        case Self.lf where endedWithCR:
            endedWithCR = false
        case Self.cr, Self.lf:
            endedWithCR = byte == Self.cr
            if let event = try processLine() {
                events.append(event)
            }
            line.removeAll(keepingCapacity: true)
        default:
            endedWithCR = false
            guard line.count < limit else {
                throw FetchError.lineTooLong(limit: limit)
            }
            line.append(byte)
        }
    }

    /// Processes the complete line in `line`; returns the event a blank line dispatches.
    private mutating func processLine() throws(FetchError) -> ServerSentEvent? {
        guard let first = line.first else {
            return dispatch()
        }
        if first == UInt8(ascii: ":") {
            return nil
        }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") {
                value = value.dropFirst()
            }
        } else {
            field = line[...]
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventTypeBuffer = String(decoding: value, as: UTF8.self)
        case "data":
            // `dataByteCount` is never above `limit`, so neither side can overflow.
            let added = value.count + (hasData ? 1 : 0)
            guard added <= limit - dataByteCount else {
                throw FetchError.lineTooLong(limit: limit)
            }
            dataByteCount += added
            if hasData {
                dataBuffer += "\n"
            }
            dataBuffer += String(decoding: value, as: UTF8.self)
            hasData = true
        case "id":
            if !value.contains(0) {
                lastEventIDBuffer = String(decoding: value, as: UTF8.self)
            }
        case "retry":
            if let milliseconds = WireNumber.saturatingDigits(value, maximum: .max) {
                reconnectionTime = milliseconds
                retryInBlock = milliseconds
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastEventIDBuffer.isEmpty ? nil : lastEventIDBuffer
        defer {
            dataBuffer = ""
            dataByteCount = 0
            hasData = false
            eventTypeBuffer = ""
            retryInBlock = nil
        }
        // "data:" with an empty value makes the data buffer "\n", which is not empty: such an event is dispatched
        // with empty data. Only a block without any data field dispatches nothing.
        guard hasData else {
            return nil
        }
        return ServerSentEvent(
            id: lastEventID,
            event: eventTypeBuffer.isEmpty ? "message" : eventTypeBuffer,
            data: dataBuffer,
            retry: retryInBlock
        )
    }
}
