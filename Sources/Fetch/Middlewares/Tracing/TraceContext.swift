import Foundation

/// A position in a distributed trace, as W3C Trace Context (version 00) carries it between services in the
/// `traceparent` and `tracestate` header fields.
///
/// ``Middleware/traceContext(_:)`` sends it with every attempt of a call. A service that received a request hands
/// the trace on to the calls it makes, with ``current`` or explicitly:
///
/// ```swift
/// let parent = TraceContext(traceparent: incoming["traceparent"] ?? "", tracestate: incoming["tracestate"])
/// let user: User = try await TraceContext.$current.withValue(parent) {
///     try await api.perform(GetUser(id: 1))
/// }
/// ```
///
/// Parsing is strict: a `traceparent` that breaks the grammar (uppercase digits, an id of zeros, a wrong length,
/// version `ff`) gives `nil`, and the trace restarts; a `tracestate` that breaks its own is dropped, never the trace.
public struct TraceContext: Sendable, Hashable {
    /// The trace: 32 lowercase hexadecimal digits, not all zero.
    public let traceID: String
    /// The span: 16 lowercase hexadecimal digits, not all zero; the `parent-id` of the `traceparent` a request sends.
    public let spanID: String
    /// Whether the trace is sampled: the `sampled` flag.
    public let isSampled: Bool
    /// The vendors' `tracestate`: its list members in order, joined with commas, without the empty ones, at most
    /// 512 characters (longer ones lose whole members as the specification says); `nil` when there is none.
    public let state: String?

    /// A context made of parts already checked.
    package init(checkedTraceID traceID: String, spanID: String, isSampled: Bool, state: String?) {
        self.traceID = traceID
        self.spanID = spanID
        self.isSampled = isSampled
        self.state = state
    }

    /// A new trace, with random ids (never all zero) and no `tracestate`.
    ///
    /// - Parameter isSampled: Whether services downstream should record the trace. The default is `true`: a
    ///   service that samples as its parent did then records the calls this trace starts.
    public init(isSampled: Bool = true) {
        var random = SystemRandomWords(prefetching: 3)
        self.init(
            checkedTraceID: Self.randomID(hexDigits: 32, using: &random),
            spanID: Self.randomID(hexDigits: 16, using: &random), isSampled: isSampled, state: nil)
    }

    /// The context that the values of a received `traceparent` and `tracestate` carry, or `nil` when the
    /// `traceparent` breaks the W3C grammar.
    ///
    /// Version `00` is exactly `00-<trace-id>-<parent-id>-<flags>`: 32 and 16 lowercase hexadecimal digits, neither
    /// all zero, and 2 for the flags. A later version (not `ff`) is read as the specification says: its first three
    /// fields as version 00's, followed by the end or a dash, and the rest ignored. An invalid `tracestate` (a
    /// malformed member, a repeated key, more than 32 members) is dropped, and the context kept.
    ///
    /// - Parameters:
    ///   - traceparent: The `traceparent` field's value.
    ///   - tracestate: The `tracestate` field's value (repeated fields joined with commas), or `nil`.
    public init?(traceparent: String, tracestate: String? = nil) {
        let bytes = Array(traceparent.utf8.prefix(56))
        guard bytes.count >= 55, let version = Self.hexValue(bytes[0..<2]), version != 0xff, bytes[2] == 0x2D,
            bytes[35] == 0x2D, bytes[52] == 0x2D, let flags = Self.hexValue(bytes[53..<55])
        else {
            return nil
        }
        // Version 00 ends after its flags; a later one goes on with a dash, and fields this version cannot read.
        guard version == 0 ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == 0x2D) else {
            return nil
        }
        let traceID = bytes[3..<35]
        let spanID = bytes[36..<52]
        guard Self.isID(traceID), Self.isID(spanID) else {
            return nil
        }
        self.init(
            checkedTraceID: String(decoding: traceID, as: UTF8.self), spanID: String(decoding: spanID, as: UTF8.self),
            isSampled: flags & 1 == 1, state: tracestate.flatMap(Self.validState))
    }

    /// The `traceparent` field's value for this context, version 00: `00-<traceID>-<spanID>-01` when sampled.
    public var traceparent: String {
        "00-\(traceID)-\(spanID)-\(isSampled ? "01" : "00")"
    }

    /// The trace the code running now belongs to, which ``Middleware/traceContext(_:)`` continues; `nil` when none
    /// was set. Set it for a scope with `TraceContext.$current.withValue(context) { … }`.
    @TaskLocal public static var current: TraceContext?

    /// The same trace, with a new random span: the context of one attempt made within this one.
    package func newSpan() -> TraceContext {
        var random = SystemRandomNumberGenerator()
        return TraceContext(
            checkedTraceID: traceID, spanID: Self.randomID(hexDigits: 16, using: &random), isSampled: isSampled,
            state: state)
    }
}

// MARK: - The grammar

extension TraceContext {
    /// The most list members a `tracestate` may have.
    static let maximumStateMembers = 32
    /// The longest `tracestate` Fetch sends, the length the specification asks every vendor to pass on.
    static let maximumStateLength = 512
    /// The longest `tracestate` Fetch reads: 32 members of a 256-character key and value, with room for optional
    /// whitespace. Anything longer cannot be valid and is dropped unread.
    static let maximumStateInput = 32 * 1024

    /// `count` random lowercase hexadecimal digits (16 or 32), not all zero.
    private static func randomID(hexDigits count: Int, using random: inout some RandomNumberGenerator) -> String {
        var high: UInt64 = 0
        var low: UInt64 = 0
        while high | low == 0 {
            high = count == 32 ? random.next() : 0
            low = random.next()
        }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            func write(_ word: UInt64) {
                for shift in stride(from: 60, through: 0, by: -4) {
                    let digit = UInt8(truncatingIfNeeded: word >> UInt64(shift) & 0xF)
                    buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
                    index += 1
                }
            }
            if count == 32 {
                write(high)
            }
            write(low)
            return index
        }
    }

    /// The value of two lowercase hexadecimal digits, or `nil` when they are not.
    private static func hexValue(_ digits: ArraySlice<UInt8>) -> UInt8? {
        var value: UInt8 = 0
        for byte in digits {
            guard let digit = hexDigit(byte) else {
                return nil
            }
            value = value << 4 | digit
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// Whether `digits` are lowercase hexadecimal and not all zero: a valid trace or parent id.
    private static func isID(_ digits: ArraySlice<UInt8>) -> Bool {
        digits.allSatisfy { hexDigit($0) != nil } && digits.contains { $0 != 0x30 }
    }

    /// `raw` as a valid `tracestate` to send on, or `nil` when it is invalid or empty.
    ///
    /// Members are `key=value`: a key of 1 to 256 characters from `a-z 0-9 _ - * / @`, starting with a letter or
    /// digit; a value of 1 to 256 printable ASCII characters but `,` and `=`, not ending with a space. Whitespace
    /// around members and empty members are dropped. Past 512 characters, members longer than 128 go first, then
    /// the last ones, as the specification says.
    static func validState(_ raw: String) -> String? {
        guard raw.utf8.count <= maximumStateInput else {
            return nil
        }
        var members: [Substring] = []
        var keys: Set<Substring> = []
        for piece in raw.split(separator: ",", omittingEmptySubsequences: false) {
            let member = trimmingWhitespace(piece)
            guard !member.isEmpty else {
                continue
            }
            guard let equals = member.firstIndex(of: "="), isKey(member[..<equals]),
                isValue(member[member.index(after: equals)...]), keys.insert(member[..<equals]).inserted
            else {
                return nil
            }
            members.append(member)
        }
        guard members.count <= maximumStateMembers else {
            return nil
        }
        func length() -> Int {
            members.reduce(max(0, members.count - 1)) { $0 + $1.utf8.count }
        }
        while length() > maximumStateLength {
            members.remove(at: members.lastIndex { $0.utf8.count > 128 } ?? members.count - 1)
        }
        return members.isEmpty ? nil : members.joined(separator: ",")
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmingWhitespace(_ text: Substring) -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = text.firstIndex(where: { !isWhitespace($0) }),
            let end = text.lastIndex(where: { !isWhitespace($0) })
        else {
            return text[text.endIndex...]
        }
        return text[start...end]
    }

    private static func isKey(_ key: Substring) -> Bool {
        let bytes = key.utf8
        guard let first = bytes.first, (0x61...0x7A).contains(first) || (0x30...0x39).contains(first),
            bytes.count <= 256
        else {
            return false
        }
        return bytes.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5F || byte == 0x2D
                || byte == 0x2A || byte == 0x2F || byte == 0x40
        }
    }

    private static func isValue(_ value: Substring) -> Bool {
        let bytes = value.utf8
        guard let last = bytes.last, last != 0x20, bytes.count <= 256 else {
            return false
        }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x2C && $0 != 0x3D }
    }
}
