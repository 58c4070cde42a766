import Fetch
import Foundation

/// W3C Trace Context (`TraceContext(traceparent:tracestate:)`), read from fields an upstream service or a caller hands
/// in: a context it reads writes a `traceparent` of exactly version 00's grammar (55 bytes: `00-`, 32 lowercase hex
/// digits not all zero, `-`, 16 more not all zero, `-`, `00` or `01`) with the trace id it was given, and reads back
/// as the same context; every valid version-00 `traceparent` reads; the `tracestate` it keeps has at most 32 members
/// and 512 bytes, no empty member, is a valid header value and is kept as it is when read again; a new span keeps the
/// trace and its state.
package enum TraceContextProperties {
    /// Checks the properties on a `traceparent` (a length byte, then its bytes) and a `tracestate` (the rest).
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let traceparent = reader.string(upTo: 80)
        let tracestate = String(decoding: reader.rest(), as: UTF8.self)
        let given = "traceparent \(traceparent.debugDescription), tracestate \(tracestate.prefix(200).debugDescription)"
        guard let context = TraceContext(traceparent: traceparent, tracestate: tracestate.isEmpty ? nil : tracestate)
        else {
            return isVersion00(traceparent) ? "\(given) is refused, but it is a valid version-00 traceparent" : nil
        }
        if let problem = grammarProblem(context.traceparent) {
            return "\(given) writes \(context.traceparent.debugDescription): \(problem)"
        }
        guard traceparent.utf8.dropFirst(3).prefix(32).elementsEqual(context.traceID.utf8) else {
            return "\(given) reads the trace id \(context.traceID), not the one given"
        }
        if let state = context.state, let problem = stateProblem(state) {
            return "\(given) keeps the tracestate \(state.debugDescription): \(problem)"
        }
        guard TraceContext(traceparent: context.traceparent, tracestate: context.state) == context else {
            return "\(given) does not read back from what it writes: \(context.traceparent) \(context.state ?? "")"
        }
        let span = context.newSpan()
        guard span.traceID == context.traceID, span.state == context.state, grammarProblem(span.traceparent) == nil
        else {
            return "\(given) makes the span \(span.traceparent.debugDescription), not one of the same trace"
        }
        return nil
    }

    /// What is wrong with `header` as a version-00 `traceparent` Fetch sends, or `nil`.
    private static func grammarProblem(_ header: String) -> String? {
        let bytes = Array(header.utf8)
        guard bytes.count == 55 else {
            return "it has \(bytes.count) bytes, not 55"
        }
        guard bytes[0] == 0x30, bytes[1] == 0x30, bytes[2] == 0x2D, bytes[35] == 0x2D, bytes[52] == 0x2D else {
            return "its version is not 00, or a dash is missing"
        }
        guard isID(bytes[3..<35]), isID(bytes[36..<52]) else {
            return "an id is not lowercase hexadecimal, or is all zeros"
        }
        guard bytes[53] == 0x30, bytes[54] == 0x30 || bytes[54] == 0x31 else {
            return "its flags are not 00 or 01"
        }
        return nil
    }

    /// Whether `header` is a valid version-00 `traceparent` as received: any two hex digits of flags.
    private static func isVersion00(_ header: String) -> Bool {
        let bytes = Array(header.utf8)
        return bytes.count == 55 && bytes[0] == 0x30 && bytes[1] == 0x30 && bytes[2] == 0x2D && bytes[35] == 0x2D
            && bytes[52] == 0x2D && isID(bytes[3..<35]) && isID(bytes[36..<52]) && bytes[53...].allSatisfy(isHex)
    }

    /// What is wrong with `state` as a `tracestate` Fetch sends, or `nil`.
    private static func stateProblem(_ state: String) -> String? {
        let members = state.utf8.split(separator: 0x2C, omittingEmptySubsequences: false)
        guard members.count <= 32, state.utf8.count <= 512 else {
            return "it has \(members.count) members and \(state.utf8.count) bytes (at most 32 and 512)"
        }
        guard !members.contains(where: \.isEmpty) else {
            return "it has an empty member"
        }
        do {
            try HeaderValidation.validate(name: "tracestate", value: state, in: "GET http://127.0.0.1/")
        } catch {
            return "it is not a valid header value: \(error)"
        }
        return nil
    }

    private static func isID(_ digits: ArraySlice<UInt8>) -> Bool {
        digits.allSatisfy(isHex) && digits.contains { $0 != 0x30 }
    }

    /// A lowercase hexadecimal digit, the only kind W3C Trace Context allows.
    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }
}
