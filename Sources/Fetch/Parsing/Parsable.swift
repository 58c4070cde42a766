import Foundation

/// A type that can be read from a ``Response``.
///
/// Any `Decodable` model gets the conformance for free: declare it and the body is decoded as JSON when the status
/// is 2xx, and turned into an error otherwise.
///
/// ```swift
/// struct User: Decodable, Parsable {
///     let id: Int
///     let name: String
/// }
/// ```
///
/// Fetch also ships conformances for `Data`, `String`, ``Response`` (the raw response, any status),
/// ``EmptyResponse`` and arrays of `Decodable` models. Implement ``parse(response:errorParser:)`` yourself for any
/// other format, and begin with ``Response/requireSuccess(errorParser:)``: a status outside 2xx is then the error
/// parser's error, as for Fetch's own conformances, not a value read from an error page.
public protocol Parsable: Sendable {
    /// Reads a value from a response.
    ///
    /// - Parameters:
    ///   - response: The response to read.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The value, or the error to deliver: the error parser's error or ``FetchError/unacceptableStatus(_:)``
    ///   for a status outside 2xx, ``FetchError/decoding(_:_:)`` when the body is not what was expected.
    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Self, any Error>

    /// The decoder that reads this type from JSON, when it is `Decodable`.
    ///
    /// The default accepts ISO-8601 dates with and without fractional seconds and leaves keys as they are. Declare
    /// your own as a stored `static let` (not a computed property, which would build a decoder for every response):
    ///
    /// ```swift
    /// static let decoder: JSONDecoder = {
    ///     let decoder = JSONDecoder()
    ///     decoder.keyDecodingStrategy = .convertFromSnakeCase
    ///     decoder.dateDecodingStrategy = DefaultDecoding.iso8601Flexible
    ///     return decoder
    /// }()
    /// ```
    static var decoder: JSONDecoder { get }
}

extension Parsable {
    /// The default decoder: ISO-8601 dates with or without fractional seconds, keys as they are.
    public static var decoder: JSONDecoder { DefaultDecoding.decoder }
}

// MARK: - Decodable

extension Parsable where Self: Decodable {
    /// Decodes the body as JSON with ``decoder`` when the status is 2xx.
    ///
    /// - Parameters:
    ///   - response: The response to read.
    ///   - errorParser: The object that turns an error body into an error, or `nil`.
    /// - Returns: The decoded value; the error parser's error or ``FetchError/unacceptableStatus(_:)`` for a
    ///   status outside 2xx; ``FetchError/decoding(_:_:)`` for an empty or malformed body.
    public static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Self, any Error> {
        response.requireSuccess(errorParser: errorParser).flatMap { response in
            Parsing.decode(Self.self, from: response, with: decoder)
        }
    }
}

/// The decoder used by `Decodable` models that do not declare their own.
public enum DefaultDecoding {
    /// A shared decoder that accepts ISO-8601 dates with and without fractional seconds.
    ///
    /// It is shared by every model that does not declare a ``Parsable/decoder``: do not change its settings;
    /// declare a decoder of your own instead.
    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = DefaultDecoding.iso8601Flexible
        return decoder
    }()

    /// Decodes dates from ISO-8601 strings with or without fractional seconds, such as `2026-11-30T08:42:12Z` and
    /// `2026-11-30T08:42:12.345+01:00`.
    ///
    /// Foundation's `.iso8601` strategy rejects fractional seconds, which many servers send.
    public static var iso8601Flexible: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = ISO8601.date(from: text) {
                return date
            }
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "expected an ISO-8601 date such as 2026-11-30T08:42:12Z, found \(text.debugDescription)"
            )
        }
    }
}

/// Reads ISO-8601 timestamps with or without fractional seconds, and writes them so that they read back the same.
enum ISO8601 {
    private static let whole = Date.ISO8601FormatStyle()
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `date` as an ISO-8601 internet date-time in UTC: whole seconds (`2026-11-30T08:42:12Z`) when it has no
    /// fraction, else milliseconds (`.345Z`), or microseconds (`.345678Z`) when it has a finer fraction.
    ///
    /// Foundation's fractional style cuts the fraction to milliseconds rather than rounding it, and a parsed `.002`
    /// is a `Double` just below it: written by Foundation it would come back as `.001`. Here the fraction is rounded
    /// to the microsecond, which a `Date` of this era holds exactly enough, so that what ``date(from:)`` read is
    /// written as it came (to six digits).
    static func string(from date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard micros.isFinite, let total = Int64(exactly: micros) else {
            return whole.format(date)  // beyond any calendar a server writes: whole seconds, as before
        }
        let (seconds, fraction) = total.quotientAndRemainder(dividingBy: 1_000_000)
        // A negative remainder belongs to the second before (1969-12-31T23:59:59.5Z is -0.5 s).
        let second = fraction < 0 ? seconds - 1 : seconds
        let micro = fraction < 0 ? fraction + 1_000_000 : fraction
        let stamp = whole.format(Date(timeIntervalSince1970: TimeInterval(second)))
        guard micro != 0, stamp.hasSuffix("Z") else {
            return stamp
        }
        let digits = micro % 1_000 == 0 ? pad(micro / 1_000, to: 3) : pad(micro, to: 6)
        return "\(stamp.dropLast()).\(digits)Z"
    }

    /// `value`'s decimal digits, with leading zeros up to `width`.
    private static func pad(_ value: Int64, to width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The date `text` names, or `nil` when it is not an ISO-8601 internet date-time.
    static func date(from text: String) -> Date? {
        if let date = try? whole.parse(text) {
            return date
        }
        return try? fractional.parse(text)
    }
}

/// The steps every ready ``Parsable`` conformance shares.
package enum Parsing {
    /// Decodes `type` from the response's body, or fails with ``FetchError/decoding(_:_:)``.
    package static func decode<T: Decodable>(
        _ type: T.Type,
        from response: Response,
        with decoder: JSONDecoder
    ) -> Result<T, any Error> {
        guard let data = response.data, !data.isEmpty else {
            let context = DecodingError.Context(
                codingPath: [],
                debugDescription: "the body is empty, but \(T.self) is read from JSON"
            )
            return .failure(FetchError.decoding(.dataCorrupted(context), response))
        }
        do {
            return .success(try decoder.decode(T.self, from: data))
        } catch let error as DecodingError {
            return .failure(FetchError.decoding(error, response))
        } catch {
            let context = DecodingError.Context(
                codingPath: [],
                debugDescription: "\(T.self) could not be decoded",
                underlyingError: error
            )
            return .failure(FetchError.decoding(.dataCorrupted(context), response))
        }
    }
}
