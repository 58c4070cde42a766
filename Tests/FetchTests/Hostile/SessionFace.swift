import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each way to make a `Session` (Session.swift, Session+Backend.swift): the hostile suite runs every behaviour on
/// each, because each reads a response through a different path. `Session(transport: URLSessionTransport(configuration: configuration))`
/// is `Session(transport: URLSessionTransport(configuration:))` under another name, so it is not a face of its own.
enum SessionFace: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `Session()`: on `URLSession.shared`, whose delegate Fetch is not.
    case shared
    /// `Session(transport: URLSessionTransport(configuration:))`: a `URLSession` of the session's own, with Fetch as its delegate.
    case configuration
    /// `Session(transport: URLSessionTransport(session:))` with the caller's own `URLSession`.
    case callersURLSession
    #if os(Linux)
        /// `Session(transport: CurlTransport())`: libcurl, driven directly.
        case curl
    #endif

    var testDescription: String { rawValue }

    /// Whether the face reads responses through `URLSession` (swift-corelibs-foundation on Linux).
    var isURLSession: Bool {
        switch self {
        case .shared, .configuration, .callersURLSession: true
        #if os(Linux)
            case .curl: false
        #endif
        }
    }

    /// A new session of this face with the suite's ``HostileBounds/maximumResponseSize``, and what to do once the
    /// behaviour is over (let the caller's own `URLSession` go).
    func makeSession() throws -> (session: Session, finish: @Sendable () -> Void) {
        let limit = HostileBounds.maximumResponseSize
        switch self {
        case .shared:
            return (Session(transport: URLSessionTransport(maximumResponseSize: limit)), {})
        case .configuration:
            return (Session(transport: URLSessionTransport(configuration: .ephemeral, maximumResponseSize: limit)), {})
        case .callersURLSession:
            let urlSession = URLSession(configuration: .ephemeral)
            return (
                Session(transport: URLSessionTransport(session: urlSession, maximumResponseSize: limit)),
                { urlSession.invalidateAndCancel() }
            )
        #if os(Linux)
            case .curl:
                return (try Session(transport: CurlTransport(maximumResponseSize: limit)), {})
        #endif
        }
    }
}
