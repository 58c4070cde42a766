import Foundation

/// An HTTP response as a ``RequestPerforming`` object received it: status, headers and body, together with the
/// request that was sent.
///
/// Tests build one directly to exercise a ``Parsable`` type without a network:
///
/// ```swift
/// let response = Response(status: 200, data: Data(#"{"id":1}"#.utf8), originalRequest: GetUser(id: 1))
/// let user = try User.parse(response: response, errorParser: nil).get()
/// ```
public struct Response: Sendable {
    /// The HTTP status code, for example `200`.
    public let status: Int

    /// The header fields as received. Look names up with ``value(forHeader:)``, which ignores case.
    public let headers: [String: String]

    /// The body, or `nil` when there was none.
    public let data: Data?

    /// The request this response answers.
    public let originalRequest: any Request

    /// The URL that answered: the request's URL, or the last one after redirects. `nil` when unknown.
    public let url: URL?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - headers: The header fields. The default is none.
    ///   - data: The body. The default is none.
    ///   - originalRequest: The request this response answers.
    ///   - url: The URL that answered. The default is `nil`.
    public init(
        status: Int,
        headers: [String: String] = [:],
        data: Data? = nil,
        originalRequest: any Request,
        url: URL? = nil
    ) {
        self.status = status
        self.headers = headers
        self.data = data
        self.originalRequest = originalRequest
        self.url = url
    }

    /// Whether ``status`` is in the 2xx success range.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Returns the value of a header field, matching its name case-insensitively as HTTP requires.
    ///
    /// - Parameter name: The field name, in any case, for example `"content-type"`.
    /// - Returns: The field's value, or `nil` when the response has no such field.
    public func value(forHeader name: String) -> String? {
        if let exact = headers[name] {
            return exact
        }
        return headers.first { HeaderName.equal($0.key, name) }?.value
    }

    /// The value of a header field, matched case-insensitively: `response[header: "etag"]`.
    ///
    /// - Parameter name: The field name, in any case.
    public subscript(header name: String) -> String? {
        value(forHeader: name)
    }
}

/// Header field names compare case-insensitively in ASCII (RFC 9110 §5.1), whatever the user's locale.
package enum HeaderName {
    /// Whether two field names are the same name.
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { lowercase($0) == lowercase($1) }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
