import Foundation

extension HAR {
    /// One exchange: a request, its response, and when and how long it took.
    package struct Entry: Codable, Sendable, Equatable {
        /// The page this entry belongs to, in a browser's recording.
        package var pageref: String?

        /// When the request started, to the millisecond. Written in ISO 8601 with fractional seconds and a time
        /// zone: `2026-11-30T08:42:12.345Z`.
        package var startedDateTime: Date

        /// The whole exchange's duration in milliseconds: the sum of the ``timings`` that apply.
        package var time: Double

        /// The request.
        package var request: SentRequest

        /// The response.
        package var response: ReceivedResponse

        /// What a cache held. Fetch leaves it empty.
        package var cache: Cache

        /// How long each phase took.
        package var timings: Timings

        /// The IP address of the server, when known.
        package var serverIPAddress: String?

        /// An identifier of the connection, when known.
        package var connection: String?

        /// A comment.
        package var comment: String?

        /// Creates an entry.
        ///
        /// - Parameters:
        ///   - startedDateTime: When the request started; kept to the millisecond, as the file stores it.
        ///   - request: The request.
        ///   - response: The response.
        ///   - timings: How long each phase took; the entry's ``time`` is their sum.
        package init(startedDateTime: Date, request: SentRequest, response: ReceivedResponse, timings: Timings) {
            self.startedDateTime = ISO8601Milliseconds.rounded(startedDateTime)
            self.time = timings.total
            self.request = request
            self.response = response
            self.cache = Cache()
            self.timings = timings
        }

        private enum CodingKeys: String, CodingKey {
            case pageref, startedDateTime, time, request, response, cache, timings, serverIPAddress, connection
            case comment
        }

        /// Decodes an entry; `startedDateTime` must be ISO 8601 with a time zone.
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` for a missing field, a field of the wrong type or a date that is not ISO 8601.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            pageref = try container.decodeIfPresent(String.self, forKey: .pageref)
            let started = try container.decode(String.self, forKey: .startedDateTime)
            guard let date = ISO8601Milliseconds.date(from: started) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .startedDateTime, in: container,
                    debugDescription: "\(started.debugDescription) is not an ISO 8601 date and time with a time zone,"
                        + " such as 2026-11-30T08:42:12.345Z"
                )
            }
            startedDateTime = date
            time = try container.decode(Double.self, forKey: .time)
            request = try container.decode(SentRequest.self, forKey: .request)
            response = try container.decode(ReceivedResponse.self, forKey: .response)
            cache = try container.decode(Cache.self, forKey: .cache)
            timings = try container.decode(Timings.self, forKey: .timings)
            serverIPAddress = try container.decodeIfPresent(String.self, forKey: .serverIPAddress)
            connection = try container.decodeIfPresent(String.self, forKey: .connection)
            comment = try container.decodeIfPresent(String.self, forKey: .comment)
        }

        /// Encodes the entry, `startedDateTime` in ISO 8601 with milliseconds.
        ///
        /// - Parameter encoder: The encoder.
        /// - Throws: The encoder's errors.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(pageref, forKey: .pageref)
            try container.encode(ISO8601Milliseconds.string(from: startedDateTime), forKey: .startedDateTime)
            try container.encode(time, forKey: .time)
            try container.encode(request, forKey: .request)
            try container.encode(response, forKey: .response)
            try container.encode(cache, forKey: .cache)
            try container.encode(timings, forKey: .timings)
            try container.encodeIfPresent(serverIPAddress, forKey: .serverIPAddress)
            try container.encodeIfPresent(connection, forKey: .connection)
            try container.encodeIfPresent(comment, forKey: .comment)
        }
    }

    /// The request of an entry.
    package struct SentRequest: Codable, Sendable, Equatable {
        /// The method, such as `GET`.
        package var method: String

        /// The absolute URL, with its query.
        package var url: String

        /// The protocol version, such as `HTTP/1.1`.
        package var httpVersion: String

        /// The cookies sent, from the `Cookie` header.
        package var cookies: [Cookie]

        /// The header fields sent.
        package var headers: [Field]

        /// The URL's query parameters, decoded.
        package var queryString: [Field]

        /// The body, if there was one.
        package var postData: PostData?

        /// The size of the request line and headers in bytes, or -1 when not known.
        package var headersSize: Int

        /// The size of the body in bytes: 0 for none, -1 when not known.
        package var bodySize: Int

        /// A comment.
        package var comment: String?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - method: The method.
        ///   - url: The absolute URL.
        ///   - httpVersion: The protocol version. The default is `HTTP/1.1`.
        ///   - cookies: The cookies sent. The default is none.
        ///   - headers: The header fields sent. The default is none.
        ///   - queryString: The query parameters. The default is none.
        ///   - postData: The body. The default is none.
        ///   - bodySize: The body's size in bytes. The default is 0.
        package init(
            method: String,
            url: String,
            httpVersion: String = "HTTP/1.1",
            cookies: [Cookie] = [],
            headers: [Field] = [],
            queryString: [Field] = [],
            postData: PostData? = nil,
            bodySize: Int = 0
        ) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.queryString = queryString
            self.postData = postData
            self.headersSize = -1
            self.bodySize = bodySize
        }
    }

    /// The response of an entry.
    package struct ReceivedResponse: Codable, Sendable, Equatable {
        /// The status code, such as 200.
        package var status: Int

        /// The reason phrase, such as `OK`.
        package var statusText: String

        /// The protocol version, such as `HTTP/1.1`.
        package var httpVersion: String

        /// The cookies set, from the `Set-Cookie` headers.
        package var cookies: [Cookie]

        /// The header fields received.
        package var headers: [Field]

        /// The body.
        package var content: Content

        /// The target of a redirect (the `Location` header), or `""`.
        package var redirectURL: String

        /// The size of the status line and headers in bytes, or -1 when not known.
        package var headersSize: Int

        /// The size of the body as transferred in bytes, or -1 when not known.
        package var bodySize: Int

        /// A comment.
        package var comment: String?

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - status: The status code.
        ///   - statusText: The reason phrase.
        ///   - httpVersion: The protocol version. The default is `HTTP/1.1`.
        ///   - cookies: The cookies set. The default is none.
        ///   - headers: The header fields. The default is none.
        ///   - content: The body.
        ///   - redirectURL: The redirect's target. The default is `""`.
        package init(
            status: Int,
            statusText: String,
            httpVersion: String = "HTTP/1.1",
            cookies: [Cookie] = [],
            headers: [Field] = [],
            content: Content,
            redirectURL: String = ""
        ) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            self.headersSize = -1
            self.bodySize = content.size
        }
    }
}

/// ISO 8601 dates with milliseconds, as HAR writes them: `2026-11-30T08:42:12.345Z`.
enum ISO8601Milliseconds {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSeconds = Date.ISO8601FormatStyle()

    /// `date` to the nearest millisecond.
    static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// `2026-11-30T08:42:12.345Z`, always with three digits of fraction.
    static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds.quotientAndRemainder(dividingBy: 1000)
        // Floor division, so that dates before 1970 keep a fraction in 0...999.
        let (whole, fraction) = seconds.remainder < 0 ? (seconds.quotient - 1, seconds.remainder + 1000) : seconds
        let text = Date(timeIntervalSince1970: TimeInterval(whole)).formatted(wholeSeconds)
        let digits = String(fraction)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// The date of an ISO 8601 date and time with a time zone, with or without a fraction; `nil` for other text.
    static func date(from text: String) -> Date? {
        guard text.count >= 20, text.contains("T") else {
            return nil
        }
        if let date = try? withFraction.parse(text) {
            return rounded(date)
        }
        // Not a failure: the text has no fraction, which the second style reads.
        return (try? wholeSeconds.parse(text)).map(rounded)
    }
}
