import Foundation

/// A position in a distributed trace, as W3C Trace Context (version 00) carries it between services in the
/// `traceparent` and `tracestate` header fields.
public struct TraceContext: Sendable, Hashable {
    /// The trace: 32 lowercase hexadecimal digits, not all zero.
    public let traceID: String
    /// The span: 16 lowercase hexadecimal digits, not all zero; the `parent-id` of the `traceparent` a request sends.
    public let spanID: String
    /// Whether the trace is sampled: the `sampled` flag.
    public let isSampled: Bool
    /// The vendors' `tracestate`, passed on as it came.
    public let state: String?

    /// A context made of parts already checked.
    package init(checkedTraceID traceID: String, spanID: String, isSampled: Bool, state: String?) {
        self.traceID = traceID
        self.spanID = spanID
        self.isSampled = isSampled
        self.state = state
    }
}
