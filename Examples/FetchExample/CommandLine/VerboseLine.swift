import Fetch
import Foundation

/// The line `--verbose` prints for one attempt of a call: its outcome, where its time went (``AttemptMetrics``'
/// description) and its trace.
///
/// `GET http://127.0.0.1:8080/api/employees → 200, attempt 1: HTTP/1.1 127.0.0.1:8080 new connection, connect
/// 0.3 ms, first byte 1.1 ms, total 1.4 ms, 412 B; trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7`. A
/// phase the transport cannot know is left out (URLSession on Linux knows only the first and last byte).
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
        let metrics = event.metrics.map(\.description) ?? "no metrics"
        let trace = event.trace.map { "; trace \($0.traceID) span \($0.spanID)" } ?? ""
        return "\(outcome)\(attempt): \(metrics)\(trace)"
    }
}
