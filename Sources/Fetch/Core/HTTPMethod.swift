/// An HTTP request method, such as `GET` or `POST`.
///
/// The common methods are static members; any other token a server understands can be written as a string literal
/// or with ``init(rawValue:)``:
///
/// ```swift
/// let purge: HTTPMethod = "PURGE"
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable {
    /// The method's name as it is sent on the wire, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its name, sent exactly as given (method names are case-sensitive in HTTP).
    ///
    /// A name must be an RFC 9110 token (letters, digits, a grave accent and `!#$%&'*+-.^_|~`): a request with any
    /// other method (empty, or with a space, CR or LF) fails with ``FetchError/invalidRequest(_:)`` before anything
    /// is sent.
    ///
    /// - Parameter rawValue: The method's name, for example `"PROPFIND"`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`: transfer a current representation of the target resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: perform resource-specific processing on the request content.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace all current representations of the target resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: apply partial modifications to the target resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove all current representations of the target resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: the same as `GET`, but the server sends no body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: describe the communication options for the target resource.
    package static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`: perform a message loop-back test along the path to the target resource.
    package static let trace = HTTPMethod(rawValue: "TRACE")
    /// `CONNECT`: establish a tunnel to the server identified by the target resource.
    package static let connect = HTTPMethod(rawValue: "CONNECT")

    /// Whether the method is *safe* (read-only) in the sense of RFC 9110 §9.2.1: `GET`, `HEAD`, `OPTIONS`, `TRACE`.
    package var isSafe: Bool {
        switch self {
        case .get, .head, .options, .trace: true
        default: false
        }
    }

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2): the safe methods,
    /// `PUT` and `DELETE`.
    package var isIdempotent: Bool {
        isSafe || self == .put || self == .delete
    }
}

// MARK: - ExpressibleByStringLiteral

extension HTTPMethod: ExpressibleByStringLiteral {
    /// Creates a method from a string literal, for example `let method: HTTPMethod = "PROPFIND"`.
    ///
    /// - Parameter value: The method's name.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }
}

// MARK: - CustomStringConvertible

extension HTTPMethod: CustomStringConvertible {
    /// The method's name, for example `GET`.
    public var description: String { rawValue }
}
