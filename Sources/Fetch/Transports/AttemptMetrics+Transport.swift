import Foundation

extension AttemptMetrics {
    /// These metrics, of the last hop of an attempt that followed `redirects` and started at `start`, as the whole
    /// attempt's: its start, and the time to the first and last byte counted from there. The phases (lookup,
    /// connect, TLS) stay the last hop's.
    func following(_ redirects: [Redirect], since start: Date) -> AttemptMetrics {
        guard !redirects.isEmpty else {
            return self
        }
        var whole = self
        let offset = max(0, self.start.timeIntervalSince(start))
        whole.start = start
        whole.timeToFirstByte = timeToFirstByte.map { $0 + offset }
        whole.duration = duration.map { $0 + offset }
        whole.redirects = redirects
        return whole
    }

    /// The seconds in `microseconds`, a count a library reported; `nil` when it is negative or past a year, which
    /// no attempt takes.
    static func seconds(microseconds: Int64) -> TimeInterval? {
        guard microseconds >= 0, microseconds <= 365 * 86_400 * 1_000_000 else {
            return nil
        }
        return TimeInterval(microseconds) / 1_000_000
    }

    /// The seconds from `start` to `end`, two instants of one clock; `nil` when `end` comes first.
    static func seconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> TimeInterval? {
        start <= end ? (end - start).seconds : nil
    }

    /// The version an ALPN protocol name or a status line's version names, in ``httpVersion``'s spelling:
    /// `http/1.1` → `HTTP/1.1`, `h2` → `HTTP/2`, `h3` → `HTTP/3`; `nil` for another name.
    static func httpVersion(named name: String) -> String? {
        switch name.lowercased() {
        case "http/1.0": "HTTP/1.0"
        case "http/1.1": "HTTP/1.1"
        case "h2", "http/2", "http/2.0", "h2c": "HTTP/2"
        case "h3", "http/3", "http/3.0": "HTTP/3"
        default: nil
        }
    }
}
