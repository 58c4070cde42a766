import Foundation

/// What one attempt of a call measured on the network: where its time went, how many bytes crossed, which HTTP
/// version was spoken over which connection, and the redirects it followed.
///
/// Every attempt that reaches one of Fetch's transports has metrics: a data call, a stream, a download or upload,
/// and a WebSocket's opening handshake (but on Apple platforms, below). Read them from ``Response/metrics`` or from the `attemptFinished` event
/// (``FetchEvent/metrics``). A field the transport cannot know is `nil`, never made up:
///
/// | field | ``CurlTransport`` | `URLSession`, Apple platforms | `URLSession`, Linux |
/// |---|---|---|---|
/// | ``start``, ``timeToFirstByte``, ``duration`` | ✓ | ✓ | ✓ (measured by Fetch) |
/// | ``domainLookup``, ``connect``, ``secureConnection`` | ✓ | ✓ | `nil` |
/// | ``isReusedConnection``, ``httpVersion``, ``remoteAddress``, ``remotePort`` | ✓ | ✓ | `nil` |
/// | ``requestHeaderBytes``, ``responseHeaderBytes``, ``responseBodyBytes`` | ✓ | ✓ | `nil` |
/// | ``requestBodyBytes`` | ✓ | ✓ | the body Fetch hands over |
/// | ``responseBodyDecodedBytes`` | ✓ | ✓ | ✓ |
/// | ``redirects`` | ✓ | ✓ | ✓ |
///
/// A WebSocket's opening handshake goes through libcurl on Linux, whichever the transport: its metrics are
/// libcurl's connection phases and address, with the time to the `101` head as Fetch measured it; on Apple platforms
/// `URLSessionWebSocketTask` measures nothing, and its handshake has no metrics. The head of a stream (a streamed
/// body, a download) carries metrics as they stand when it arrives: no ``duration`` and no body bytes yet, and on
/// Apple platforms only what Fetch measures itself (as on Linux), since `URLSessionTaskMetrics` arrive when the
/// task completes.
///
/// A phase that did not happen (no lookup, connect or TLS handshake on a reused connection) is `nil` too.
/// Durations are in seconds; the phases are measured from ``start`` in the order DNS, connect, TLS, then the first
/// byte of the answer and its last.
///
/// `AttemptMetrics` is a struct of optional fields so that a later release can add one without breaking an app; a
/// test double or a middleware of the app's own makes one with ``init(start:duration:)`` and sets what it knows.
public struct AttemptMetrics: Sendable, Hashable {
    /// When the attempt started: the request was handed to the transport.
    public var start: Date
    /// How long resolving the host's name took.
    public var domainLookup: TimeInterval?
    /// How long opening the TCP connection took, the TLS handshake not included.
    public var connect: TimeInterval?
    /// How long the TLS handshake took.
    public var secureConnection: TimeInterval?
    /// The time from ``start`` to the first byte of the response.
    public var timeToFirstByte: TimeInterval?
    /// The time from ``start`` to the last byte of the response; `nil` while a streamed body is still arriving.
    public var duration: TimeInterval?
    /// The bytes of the request's head, as sent.
    public var requestHeaderBytes: Int?
    /// The bytes of the request's body, as sent.
    public var requestBodyBytes: Int?
    /// The bytes of the response's head, as received.
    public var responseHeaderBytes: Int?
    /// The bytes of the response's body as they crossed the network: compressed, when the server compressed it.
    public var responseBodyBytes: Int?
    /// The bytes of the response's body once decoded: what ``Response/data`` holds.
    public var responseBodyDecodedBytes: Int?
    /// The HTTP version the exchange was spoken in: `HTTP/1.1`, `HTTP/2`, `HTTP/3`.
    public var httpVersion: String?
    /// Whether the request went over a connection an earlier request had opened.
    public var isReusedConnection: Bool?
    /// The IP address of the server that answered, as text: `127.0.0.1`, `::1`.
    public var remoteAddress: String?
    /// The port of the server that answered.
    public var remotePort: Int?
    /// The redirects the transport followed before the answer, in order.
    public var redirects: [Redirect]

    /// One redirect a transport followed: `url` answered `status` with a `Location` that led to `location`.
    public struct Redirect: Sendable, Hashable {
        /// The URL that answered with the redirect.
        public var url: URL
        /// The redirect's status: 301, 302, 303, 307 or 308.
        public var status: Int
        /// Where the redirect led.
        public var location: URL

        /// A redirect from `url` to `location` with `status`.
        public init(url: URL, status: Int, location: URL) {
            self.url = url
            self.status = status
            self.location = location
        }
    }

    /// Metrics of an attempt that started at `start` and took `duration` seconds, with every other field unknown.
    ///
    /// - Parameters:
    ///   - start: When the attempt started.
    ///   - duration: The time to the last byte of the response, when it is known. The default is `nil`.
    public init(start: Date, duration: TimeInterval? = nil) {
        self.start = start
        self.duration = duration
        redirects = []
    }
}

// MARK: - CustomStringConvertible

extension AttemptMetrics: CustomStringConvertible {
    /// One line for a log, with only what is known:
    /// `HTTP/1.1 127.0.0.1:8080 reused, dns 1.2 ms, connect 0.3 ms, tls 4.1 ms, first byte 210 ms, total 212 ms, 40 B`.
    public var description: String {
        var place: [String] = []
        if let httpVersion {
            place.append(httpVersion)
        }
        if let remoteAddress {
            let host = remoteAddress.contains(":") ? "[\(remoteAddress)]" : remoteAddress
            place.append(remotePort.map { "\(host):\($0)" } ?? host)
        }
        if let isReusedConnection {
            place.append(isReusedConnection ? "reused" : "new connection")
        }
        var parts: [String] = []
        if !place.isEmpty {
            parts.append(place.joined(separator: " "))
        }
        let phases: [(String, TimeInterval?)] = [
            ("dns", domainLookup), ("connect", connect), ("tls", secureConnection), ("first byte", timeToFirstByte),
            ("total", duration),
        ]
        for case (let name, let seconds?) in phases {
            parts.append("\(name) \(Self.format(seconds))")
        }
        if let bytes = responseBodyDecodedBytes ?? responseBodyBytes {
            parts.append("\(bytes) B")
        }
        if !redirects.isEmpty {
            parts.append(redirects.count == 1 ? "1 redirect" : "\(redirects.count) redirects")
        }
        return parts.isEmpty ? "no metrics" : parts.joined(separator: ", ")
    }

    /// `seconds` in milliseconds below 10 s, with one decimal below 100 ms: `1.2 ms`, `210 ms`, `12.30 s`.
    private static func format(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else {
            return "? ms"
        }
        let milliseconds = seconds * 1000
        if milliseconds < 100 {
            return String(format: "%.1f ms", milliseconds)
        }
        if seconds < 10 {
            return String(format: "%.0f ms", milliseconds)
        }
        return String(format: "%.2f s", seconds)
    }
}
