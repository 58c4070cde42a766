import Fetch
import Foundation

/// The line `--verbose` prints for one attempt of a call: its outcome, where its time went and its trace.
///
/// `GET http://127.0.0.1:8080/api/employees → 200, attempt 1: dns 0.2 ms, connect 0.3 ms, first byte 1.1 ms,
/// last byte 1.4 ms, 412 bytes, HTTP/1.1, new connection; trace 4bf92f3577b34da6a3ce929d0e0e4736 span
/// 00f067aa0ba902b7`. A phase the transport cannot know is left out (URLSession on Linux knows only the first and
/// last byte); an attempt with no metrics at all says so.
struct VerboseLine: CustomStringConvertible {
    let event: FetchEvent

    init(_ event: FetchEvent) {
        self.event = event
    }

    var description: String {
        let target = "\(event.request.method) \(event.request.url.absoluteString)"
        let outcome: String
        if let status = event.status {
            outcome = "\(target) → \(status)"
        } else {
            outcome = "\(target) failed: \(event.error.map { "\($0)" } ?? "no answer")"
        }
        let attempt = event.attempt.map { ", attempt \($0)" } ?? ""
        let trace = event.trace.map { "; trace \($0.traceID) span \($0.spanID)" } ?? ""
        return "\(outcome)\(attempt): \(Self.phases(of: event.metrics))\(trace)"
    }

    /// The phases and facts `metrics` knows, in the order they happen, or `no metrics`.
    static func phases(of metrics: AttemptMetrics?) -> String {
        guard let metrics else {
            return "no metrics"
        }
        let timed: [(String, TimeInterval?)] = [
            ("dns", metrics.domainLookup), ("connect", metrics.connect), ("tls", metrics.secureConnection),
            ("first byte", metrics.timeToFirstByte), ("last byte", metrics.duration),
        ]
        var parts = timed.compactMap { label, seconds in seconds.map { "\(label) \(milliseconds($0))" } }
        if let bytes = metrics.responseBodyBytes {
            parts.append("\(bytes) bytes")
        }
        if let version = metrics.httpVersion {
            parts.append(version)
        }
        if let reused = metrics.isReusedConnection {
            parts.append(reused ? "reused connection" : "new connection")
        }
        if let address = metrics.remoteAddress {
            parts.append(metrics.remotePort.map { "\(address) port \($0)" } ?? address)
        }
        return parts.isEmpty ? "no phases known" : parts.joined(separator: ", ")
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f ms", seconds * 1000)
    }
}
