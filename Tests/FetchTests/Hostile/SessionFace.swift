import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each way to make a `Session` (Session.swift, Session+Backend.swift): the hostile suite runs every behaviour on
/// each, because each reads a response through a different path. `Session(transport: .urlSession(configuration))`
/// is `Session(configuration:)` under another name, so it is not a face of its own.
enum SessionFace: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `Session()`: on `URLSession.shared`, whose delegate Fetch is not.
    case shared
    /// `Session(configuration:)`: a `URLSession` of the session's own, with Fetch as its delegate.
    case configuration
    /// `Session(session:)` with the caller's own `URLSession`.
    case callersURLSession
    #if os(Linux)
        /// `Session(transport: .curl)`: libcurl, driven directly.
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
            return (Session(maximumResponseSize: limit), {})
        case .configuration:
            return (Session(configuration: .ephemeral, maximumResponseSize: limit), {})
        case .callersURLSession:
            let urlSession = URLSession(configuration: .ephemeral)
            return (Session(session: urlSession, maximumResponseSize: limit), { urlSession.invalidateAndCancel() })
        #if os(Linux)
            case .curl:
                return (try Session(transport: .curl, maximumResponseSize: limit), {})
        #endif
        }
    }
}
