import Foundation

/// Reads ``ServerSentEvent``s from the bytes of a `text/event-stream`, chunk by chunk, exactly as the WHATWG HTML
/// standard's "Interpreting an event stream" says, wherever the chunks happen to be split.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in stream {
///     for event in parser.parse(chunk) {
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
///   digits is ignored; other fields are ignored.
/// - A blank line dispatches the event, unless its data is empty. The last event ID carries over to later events.
/// - ``finishStream()`` discards an event that no blank line ended, and readies the parser for a new connection of
///   the same event source, keeping ``lastEventID`` and ``reconnectionTime``.
public struct ServerSentEventParser: Sendable {
    /// The event source's last event ID: set when an event block ends (even one without data), `nil` when empty.
    /// A reconnection sends it as `Last-Event-ID`.
    public private(set) var lastEventID: String?

    /// The reconnection time the stream last set with a valid `retry:` field, in milliseconds.
    public private(set) var reconnectionTime: Int?

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

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// Creates a parser at the start of a stream.
    ///
    /// - Parameter lastEventID: The last event ID of an earlier connection of the same event source, if any.
    public init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = lastEventID ?? ""
    }

    /// Reads the next chunk of the stream.
    ///
    /// - Parameter chunk: The bytes that arrived, in order.
    /// - Returns: The events that the chunk completed, in order; often none.
    public mutating func parse<Bytes: Sequence<UInt8>>(_ chunk: Bytes) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
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
                    read(byte, into: &events)
                }
                continue
            }
            read(byte, into: &events)
        }
        return events
    }

    /// Ends the current connection's stream: an event that no blank line ended is discarded, and the parser reads
    /// the next connection's stream from its start (byte order mark included), with the same ``lastEventID`` and
    /// ``reconnectionTime``.
    public mutating func finishStream() {
        self = ServerSentEventParser(lastEventID: lastEventID, reconnectionTime: reconnectionTime)
    }

    private init(lastEventID: String?, reconnectionTime: Int?) {
        self.init(lastEventID: lastEventID)
        self.reconnectionTime = reconnectionTime
    }

    private mutating func read(_ byte: UInt8, into events: inout [ServerSentEvent]) {
        switch byte {
        case Self.lf where endedWithCR:
            endedWithCR = false
        case Self.cr, Self.lf:
            endedWithCR = byte == Self.cr
            if let event = processLine() {
                events.append(event)
            }
            line.removeAll(keepingCapacity: true)
        default:
            endedWithCR = false
            line.append(byte)
        }
    }

    /// Processes the complete line in `line`; returns the event a blank line dispatches.
    private mutating func processLine() -> ServerSentEvent? {
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
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
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
