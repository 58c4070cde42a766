import Foundation

/// An HTTP Archive: recorded HTTP exchanges in the HAR 1.2 format that browsers' developer tools, Charles and
/// Proxyman open and write.
///
/// Each ``Entry`` is one request and its response. Fetch records entries with ``HARWriter`` and builds them with
/// `HAR.Entry(request:response:startedDateTime:timings:)`; FetchTesting replays them
/// with `MockPerformer(replaying:)`.
///
/// The types mirror the specification's objects field for field, with the same names, so a file reads as the
/// specification describes it (<http://www.softwareishard.com/blog/har-12-spec/>). Optional fields the
/// specification allows to be left out are optionals, left out when `nil`. Read files with
/// ``init(contentsOf:)`` or ``init(data:)``, which name the JSON path of anything wrong, and write them with
/// ``encoded()``.
package struct HAR: Codable, Sendable, Equatable {
    /// The archive: who made it and its entries.
    package var log: Log

    /// Creates an archive.
    ///
    /// - Parameter log: The archive's log.
    package init(log: Log) {
        self.log = log
    }

    /// Creates an empty archive made by `creator`.
    ///
    /// - Parameter creator: The application that records. The default is Fetch.
    package init(creator: Creator = .fetch) {
        self.init(log: Log(creator: creator))
    }
}

extension HAR {
    /// The root object of an archive.
    package struct Log: Codable, Sendable, Equatable {
        /// The version of the format: `"1.2"`.
        package var version: String

        /// The application that made the archive.
        package var creator: Creator

        /// The browser that made the archive, if one did.
        package var browser: Creator?

        /// The pages of a browser's recording. Fetch records none, and keeps those of a file it appends to.
        package var pages: [Page]?

        /// The exchanges, in the order they were recorded.
        package var entries: [Entry]

        /// A comment.
        package var comment: String?

        /// Creates a log.
        ///
        /// - Parameters:
        ///   - version: The format's version. The default is `"1.2"`.
        ///   - creator: The application that made the archive.
        ///   - entries: The exchanges. The default is none.
        package init(version: String = "1.2", creator: Creator, entries: [Entry] = []) {
            self.version = version
            self.creator = creator
            self.entries = entries
        }
    }

    /// The application, or browser, that made an archive.
    package struct Creator: Codable, Sendable, Equatable {
        /// Fetch, as the creator of the archives it records.
        package static let fetch = Creator(name: "Fetch", version: "1.0")

        /// The application's name.
        package var name: String

        /// The application's version.
        package var version: String

        /// A comment.
        package var comment: String?

        /// Creates a creator.
        ///
        /// - Parameters:
        ///   - name: The application's name.
        ///   - version: The application's version.
        package init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// A page of a browser's recording, kept when Fetch appends to the file.
    package struct Page: Codable, Sendable, Equatable {
        /// When the page started loading, in ISO 8601.
        package var startedDateTime: String

        /// The page's identifier, which entries name as their `pageref`.
        package var id: String

        /// The page's title.
        package var title: String

        /// The page's load timings.
        package var pageTimings: PageTimings

        /// A comment.
        package var comment: String?
    }

    /// When a page's content and the page itself had loaded, in milliseconds from its start; -1 when unknown.
    package struct PageTimings: Codable, Sendable, Equatable {
        /// When the content had loaded.
        package var onContentLoad: Double?

        /// When the page had loaded.
        package var onLoad: Double?

        /// A comment.
        package var comment: String?
    }

    /// A name and a value: a header field or a query parameter.
    package struct Field: Codable, Sendable, Equatable {
        /// The name.
        package var name: String

        /// The value.
        package var value: String

        /// A comment.
        package var comment: String?

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A cookie sent with a request or set by a response.
    package struct Cookie: Codable, Sendable, Equatable {
        /// The cookie's name.
        package var name: String

        /// The cookie's value.
        package var value: String

        /// The path it applies to.
        package var path: String?

        /// The domain it applies to.
        package var domain: String?

        /// When it expires, in ISO 8601.
        package var expires: String?

        /// Whether it is hidden from scripts.
        package var httpOnly: Bool?

        /// Whether it is sent over secure connections only.
        package var secure: Bool?

        /// A comment.
        package var comment: String?

        /// Creates a cookie.
        ///
        /// - Parameters:
        ///   - name: The cookie's name.
        ///   - value: The cookie's value.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The body of a request.
    ///
    /// The HAR 1.2 format has no encoding for request bodies; Fetch stores a body that is not text in base64 and
    /// says so in the custom field `_encoding` (custom fields start with `_`, which readers ignore).
    package struct PostData: Codable, Sendable, Equatable {
        /// The body's media type, from its `Content-Type`.
        package var mimeType: String

        /// The fields of a form body. Fetch stores forms as ``text`` instead.
        package var params: [Param]?

        /// The body: its text, or its bytes in base64 when ``encoding`` is `"base64"`.
        package var text: String?

        /// `"base64"` when ``text`` holds the body's bytes in base64; `nil` when it is the text itself.
        package var encoding: String?

        /// A comment: Fetch says here when it stored only the first bytes of a large body.
        package var comment: String?

        /// Creates a request body.
        ///
        /// - Parameters:
        ///   - mimeType: The body's media type.
        ///   - text: The body's text, or its bytes in base64.
        ///   - encoding: `"base64"` when `text` is base64, or `nil`.
        package init(mimeType: String, text: String?, encoding: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
        }

        private enum CodingKeys: String, CodingKey {
            case mimeType, params, text
            case encoding = "_encoding"
            case comment
        }
    }

    /// A field of a form body or a part of a multipart body.
    package struct Param: Codable, Sendable, Equatable {
        /// The field's name.
        package var name: String

        /// The field's value.
        package var value: String?

        /// The name of the uploaded file.
        package var fileName: String?

        /// The uploaded file's media type.
        package var contentType: String?

        /// A comment.
        package var comment: String?
    }

    /// The body of a response.
    package struct Content: Codable, Sendable, Equatable {
        /// The body's length in bytes, as received (after any decompression).
        package var size: Int

        /// How many bytes compression saved, when known.
        package var compression: Int?

        /// The body's media type, from its `Content-Type`, with any parameters such as the charset.
        package var mimeType: String

        /// The body: its text, or its bytes in base64 when ``encoding`` is `"base64"`.
        package var text: String?

        /// `"base64"` when ``text`` holds the body's bytes in base64; `nil` when it is the text itself.
        package var encoding: String?

        /// A comment.
        package var comment: String?

        /// Creates a response body.
        ///
        /// - Parameters:
        ///   - size: The body's length in bytes.
        ///   - mimeType: The body's media type.
        ///   - text: The body's text, or its bytes in base64.
        ///   - encoding: `"base64"` when `text` is base64, or `nil`.
        package init(size: Int, mimeType: String, text: String?, encoding: String? = nil) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
        }
    }

    /// What a cache held before and after the request. Fetch leaves it empty, as the format allows.
    package struct Cache: Codable, Sendable, Equatable {
        /// A comment.
        package var comment: String?

        /// An empty cache object.
        package init() {}
    }

    /// How long each phase of an exchange took, in milliseconds; -1 for a phase that does not apply or is not
    /// known.
    package struct Timings: Codable, Sendable, Equatable {
        /// Time spent in a queue waiting for a connection.
        package var blocked: Double?

        /// Time spent resolving the host name.
        package var dns: Double?

        /// Time spent opening the connection.
        package var connect: Double?

        /// Time spent sending the request.
        package var send: Double

        /// Time spent waiting for the first byte of the response.
        package var wait: Double

        /// Time spent reading the response.
        package var receive: Double

        /// Time spent on TLS, included in ``connect``.
        package var ssl: Double?

        /// A comment.
        package var comment: String?

        /// Creates timings.
        ///
        /// - Parameters:
        ///   - send: Time spent sending the request.
        ///   - wait: Time spent waiting for the response.
        ///   - receive: Time spent reading the response.
        package init(send: Double, wait: Double, receive: Double) {
            self.send = send
            self.wait = wait
            self.receive = receive
        }

        /// Timings of a call whose phases were not measured apart: all of `duration`, in seconds, is counted as
        /// waiting, to the microsecond.
        ///
        /// - Parameter duration: The whole call's duration, in seconds.
        /// - Returns: The timings.
        package static func total(_ duration: TimeInterval) -> Timings {
            Timings(send: 0, wait: (max(0, duration) * 1_000_000).rounded() / 1000, receive: 0)
        }

        /// Timings of a call whose phases were not measured apart, as ``total(_:)-(TimeInterval)`` makes them from
        /// a `Duration`, such as the one between two `ContinuousClock` instants.
        ///
        /// - Parameter duration: The whole call's duration.
        /// - Returns: The timings.
        package static func total(_ duration: Duration) -> Timings {
            let (seconds, attoseconds) = duration.components
            return total(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
        }

        /// Timings of an attempt as its `metrics` measured it, in HAR's phases: `dns`, `connect` (TLS included),
        /// `ssl`, then `wait` until the first byte and `receive` until the last, -1 for a phase that did not happen
        /// or is not known (`blocked` always, and the connection's phases on a reused connection). `send` is 0:
        /// no transport tells sending from waiting, so the time to send is part of `wait`.
        ///
        /// - Parameters:
        ///   - metrics: What the attempt measured.
        ///   - total: The time to the last byte in seconds, when the metrics have none (a stream's head).
        /// - Returns: The timings, which add up to the time to the last byte.
        package static func measured(_ metrics: AttemptMetrics, total: TimeInterval) -> Timings {
            let dns = metrics.domainLookup.map(milliseconds)
            let ssl = metrics.secureConnection.map(milliseconds)
            let connect: Double? =
                metrics.connect == nil && ssl == nil
                ? nil : (metrics.connect.map(milliseconds) ?? 0) + (ssl ?? 0)
            let setup = (dns ?? 0) + (connect ?? 0)
            let last = milliseconds(metrics.duration ?? total)
            let firstByte = metrics.timeToFirstByte.map(milliseconds) ?? last
            let wait = rounded(max(0, firstByte - setup))
            var timings = Timings(send: 0, wait: wait, receive: rounded(max(0, last - setup - wait)))
            timings.blocked = -1
            timings.dns = dns ?? -1
            timings.connect = connect.map(rounded) ?? -1
            timings.ssl = ssl ?? -1
            return timings
        }

        /// `seconds` in milliseconds, to the microsecond; 0 for a value that is not finite and positive.
        private static func milliseconds(_ seconds: TimeInterval) -> Double {
            guard seconds.isFinite, seconds > 0 else {
                return 0
            }
            return (min(seconds, 365 * 86_400) * 1_000_000).rounded() / 1000
        }

        /// `milliseconds` to the microsecond.
        private static func rounded(_ milliseconds: Double) -> Double {
            (milliseconds * 1000).rounded() / 1000
        }

        /// The sum of the phases that apply, in milliseconds: an entry's `time`. `ssl` is part of `connect`.
        package var total: Double {
            [blocked, dns, connect, send, wait, receive].reduce(0) { sum, phase in sum + max(0, phase ?? 0) }
        }
    }
}
