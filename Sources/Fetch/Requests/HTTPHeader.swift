import Foundation

/// One header field, with helpers for the common ones.
///
/// ```swift
/// let request = APIRequest(url)
///     .header(.accept("application/json"))
///     .header(.authorization(bearerToken: token))
///     .header(.authorization(username: "ada", password: "s3cr3t:ü"))
/// ```
///
/// Names and values are checked when the request is built: a CR, LF or NUL in either makes
/// ``Request/makeURLRequest()`` throw ``FetchError/invalidRequest(_:)``, so user input cannot inject headers.
public struct HTTPHeader: Hashable, Sendable {
    /// The field name, such as `Content-Type`. Names compare case-insensitively when headers are merged.
    public let name: String

    /// The field value.
    public let value: String

    /// Why the field cannot be sent, when a helper could not make it: building the request throws it.
    let problem: String?

    /// Creates a header field.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
        self.problem = nil
    }

    private init(name: String, unsendable problem: String) {
        self.name = name
        self.value = ""
        self.problem = problem
    }

    /// `Content-Type`: the media type of the body, such as `application/json`.
    ///
    /// - Parameter mediaType: The media type, with any parameters (`text/plain; charset=utf-8`).
    /// - Returns: The header field.
    package static func contentType(_ mediaType: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Type", value: mediaType)
    }

    /// `Accept`: the media types the client can read, such as `application/json`.
    ///
    /// - Parameter mediaTypes: The media types, comma-separated, with any quality values.
    /// - Returns: The header field.
    public static func accept(_ mediaTypes: String) -> HTTPHeader {
        HTTPHeader(name: "Accept", value: mediaTypes)
    }

    /// `User-Agent`: the name and version of the client, such as `MyApp/1.2`.
    ///
    /// - Parameter product: The product tokens and comments.
    /// - Returns: The header field.
    package static func userAgent(_ product: String) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: product)
    }

    /// `Authorization: Bearer <token>`, for OAuth 2 access tokens and API keys.
    ///
    /// - Parameter token: The token, sent as given.
    /// - Returns: The header field.
    public static func authorization(bearerToken token: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: "Bearer \(token)")
    }

    /// `Authorization: Basic <credentials>`: the Base64 of the UTF-8 of `username:password` (RFC 7617).
    ///
    /// - Parameters:
    ///   - username: The user name, which must not contain a colon: the server splits the credentials at the first.
    ///   - password: The password; any characters.
    /// - Returns: The header field. Like every modifier, it never throws: a user name with a colon makes
    ///   ``Request/makeURLRequest()`` throw ``FetchError/invalidRequest(_:)``, and nothing is sent.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        guard !username.contains(":") else {
            return HTTPHeader(
                name: "Authorization",
                unsendable: "Basic authorization for user \(username.debugDescription): a user name cannot contain a"
                    + " colon, which separates it from the password (RFC 7617)"
            )
        }
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        return HTTPHeader(name: "Authorization", value: "Basic \(credentials)")
    }

    /// Merges default header fields, such as a session's, under a request's own: names compare case-insensitively,
    /// and where both have a field the request's value wins.
    ///
    /// - Parameters:
    ///   - headers: The request's own fields.
    ///   - defaults: The fields to add where the request has none of the same name.
    /// - Returns: The request's fields, then each default whose name the request does not use in any case.
    package static func merged(_ headers: HeaderFields, over defaults: HeaderFields) -> HeaderFields {
        HeaderFields(Array(headers) + defaults.filter { !headers.contains($0.name) })
    }
}
