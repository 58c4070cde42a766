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
public struct HAR: Codable, Sendable, Equatable {
    /// The archive: who made it and its entries.
    public var log: Log

    /// Creates an archive.
    ///
    /// - Parameter log: The archive's log.
    public init(log: Log) {
        self.log = log
    }

    /// Creates an empty archive made by `creator`.
    ///
    /// - Parameter creator: The application that records. The default is Fetch.
    public init(creator: Creator = .fetch) {
        self.init(log: Log(creator: creator))
    }
}

extension HAR {
    /// The root object of an archive.
    public struct Log: Codable, Sendable, Equatable {
        /// The version of the format: `"1.2"`.
        public var version: String

        /// The application that made the archive.
        public var creator: Creator

        /// The browser that made the archive, if one did.
        public var browser: Creator?

        /// The pages of a browser's recording. Fetch records none, and keeps those of a file it appends to.
        public var pages: [Page]?

        /// The exchanges, in the order they were recorded.
        public var entries: [Entry]

        /// A comment.
        public var comment: String?

        /// Creates a log.
        ///
        /// - Parameters:
        ///   - version: The format's version. The default is `"1.2"`.
        ///   - creator: The application that made the archive.
        ///   - entries: The exchanges. The default is none.
        public init(version: String = "1.2", creator: Creator, entries: [Entry] = []) {
            self.version = version
            self.creator = creator
            self.entries = entries
        }
    }

    /// The application, or browser, that made an archive.
    public struct Creator: Codable, Sendable, Equatable {
        /// Fetch, as the creator of the archives it records.
        public static let fetch = Creator(name: "Fetch", version: "1.0")

        /// The application's name.
        public var name: String

        /// The application's version.
        public var version: String

        /// A comment.
        public var comment: String?

        /// Creates a creator.
        ///
        /// - Parameters:
        ///   - name: The application's name.
        ///   - version: The application's version.
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// A page of a browser's recording, kept when Fetch appends to the file.
    public struct Page: Codable, Sendable, Equatable {
        /// When the page started loading, in ISO 8601.
        public var startedDateTime: String

        /// The page's identifier, which entries name as their `pageref`.
        public var id: String

        /// The page's title.
        public var title: String

        /// The page's load timings.
        public var pageTimings: PageTimings

        /// A comment.
        public var comment: String?
    }

    /// When a page's content and the page itself had loaded, in milliseconds from its start; -1 when unknown.
    public struct PageTimings: Codable, Sendable, Equatable {
        /// When the content had loaded.
        public var onContentLoad: Double?

        /// When the page had loaded.
        public var onLoad: Double?

        /// A comment.
        public var comment: String?
    }

    /// A name and a value: a header field or a query parameter.
    public struct Field: Codable, Sendable, Equatable {
        /// The name.
        public var name: String

        /// The value.
        public var value: String

        /// A comment.
        public var comment: String?

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A cookie sent with a request or set by a response.
    public struct Cookie: Codable, Sendable, Equatable {
        /// The cookie's name.
        public var name: String

        /// The cookie's value.
        public var value: String

        /// The path it applies to.
        public var path: String?

        /// The domain it applies to.
        public var domain: String?

        /// When it expires, in ISO 8601.
        public var expires: String?

        /// Whether it is hidden from scripts.
        public var httpOnly: Bool?

        /// Whether it is sent over secure connections only.
        public var secure: Bool?

        /// A comment.
        public var comment: String?

        /// Creates a cookie.
        ///
        /// - Parameters:
        ///   - name: The cookie's name.
        ///   - value: The cookie's value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The body of a request.
    ///
    /// The HAR 1.2 format has no encoding for request bodies; Fetch stores a body that is not text in base64 and
    /// says so in the custom field `_encoding` (custom fields start with `_`, which readers ignore).
    public struct PostData: Codable, Sendable, Equatable {
        /// The body's media type, from its `Content-Type`.
        public var mimeType: String

        /// The fields of a form body. Fetch stores forms as ``text`` instead.
        public var params: [Param]?

        /// The body: its text, or its bytes in base64 when ``encoding`` is `"base64"`.
        public var text: String?

        /// `"base64"` when ``text`` holds the body's bytes in base64; `nil` when it is the text itself.
        public var encoding: String?

        /// A comment: Fetch says here when it stored only the first bytes of a large body.
        public var comment: String?

        /// Creates a request body.
        ///
        /// - Parameters:
        ///   - mimeType: The body's media type.
        ///   - text: The body's text, or its bytes in base64.
        ///   - encoding: `"base64"` when `text` is base64, or `nil`.
        public init(mimeType: String, text: String?, encoding: String? = nil) {
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
    public struct Param: Codable, Sendable, Equatable {
        /// The field's name.
        public var name: String

        /// The field's value.
        public var value: String?

        /// The name of the uploaded file.
        public var fileName: String?

        /// The uploaded file's media type.
        public var contentType: String?

        /// A comment.
        public var comment: String?
    }

    /// The body of a response.
    public struct Content: Codable, Sendable, Equatable {
        /// The body's length in bytes, as received (after any decompression).
        public var size: Int

        /// How many bytes compression saved, when known.
        public var compression: Int?

        /// The body's media type, from its `Content-Type`, with any parameters such as the charset.
        public var mimeType: String

        /// The body: its text, or its bytes in base64 when ``encoding`` is `"base64"`.
        public var text: String?

        /// `"base64"` when ``text`` holds the body's bytes in base64; `nil` when it is the text itself.
        public var encoding: String?

        /// A comment.
        public var comment: String?

        /// Creates a response body.
        ///
        /// - Parameters:
        ///   - size: The body's length in bytes.
        ///   - mimeType: The body's media type.
        ///   - text: The body's text, or its bytes in base64.
        ///   - encoding: `"base64"` when `text` is base64, or `nil`.
        public init(size: Int, mimeType: String, text: String?, encoding: String? = nil) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
        }
    }

    /// What a cache held before and after the request. Fetch leaves it empty, as the format allows.
    public struct Cache: Codable, Sendable, Equatable {
        /// A comment.
        public var comment: String?

        /// An empty cache object.
        public init() {}
    }

    /// How long each phase of an exchange took, in milliseconds; -1 for a phase that does not apply or is not
    /// known.
    public struct Timings: Codable, Sendable, Equatable {
        /// Time spent in a queue waiting for a connection.
        public var blocked: Double?

        /// Time spent resolving the host name.
        public var dns: Double?

        /// Time spent opening the connection.
        public var connect: Double?

        /// Time spent sending the request.
        public var send: Double

        /// Time spent waiting for the first byte of the response.
        public var wait: Double

        /// Time spent reading the response.
        public var receive: Double

        /// Time spent on TLS, included in ``connect``.
        public var ssl: Double?

        /// A comment.
        public var comment: String?

        /// Creates timings.
        ///
        /// - Parameters:
        ///   - send: Time spent sending the request.
        ///   - wait: Time spent waiting for the response.
        ///   - receive: Time spent reading the response.
        public init(send: Double, wait: Double, receive: Double) {
            self.send = send
            self.wait = wait
            self.receive = receive
        }

        /// Timings of a call whose phases were not measured apart: all of `duration`, in seconds, is counted as
        /// waiting, to the microsecond.
        ///
        /// - Parameter duration: The whole call's duration, in seconds.
        /// - Returns: The timings.
        public static func total(_ duration: TimeInterval) -> Timings {
            Timings(send: 0, wait: (max(0, duration) * 1_000_000).rounded() / 1000, receive: 0)
        }

        /// Timings of a call whose phases were not measured apart, as ``total(_:)-(TimeInterval)`` makes them from
        /// a `Duration`, such as the one between two `ContinuousClock` instants.
        ///
        /// - Parameter duration: The whole call's duration.
        /// - Returns: The timings.
        public static func total(_ duration: Duration) -> Timings {
            let (seconds, attoseconds) = duration.components
            return total(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
        }

        /// The sum of the phases that apply, in milliseconds: an entry's `time`. `ssl` is part of `connect`.
        public var total: Double {
            [blocked, dns, connect, send, wait, receive].reduce(0) { sum, phase in sum + max(0, phase ?? 0) }
        }
    }
}
