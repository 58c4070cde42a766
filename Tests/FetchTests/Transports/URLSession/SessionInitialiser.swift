import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every way to make a `Session`: the tests of a guarantee that must hold on each run once per initialiser.
enum SessionInitialiser: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `Session()`: the README's `Session()`.
    case shared
    /// `Session(transport: URLSessionTransport(configuration:))`.
    case configuration
    /// `Session(transport: URLSessionTransport(session:))` over a `URLSession` with a delegate of the app's, which Fetch does not replace.
    case appDelegate
    #if os(Linux)
        /// `Session(transport: CurlTransport())`.
        case curl
    #endif

    var testDescription: String { rawValue }

    /// A session made this way, delivering on a queue of its own.
    func makeSession(maximumResponseSize: Int = 100 << 20) throws -> Session {
        switch self {
        case .shared:
            return Session(
                transport: URLSessionTransport(maximumResponseSize: maximumResponseSize),
                callbackQueue: OperationQueue())
        case .configuration:
            return Session(
                transport: URLSessionTransport(configuration: .ephemeral, maximumResponseSize: maximumResponseSize),
                callbackQueue: OperationQueue())
        case .appDelegate:
            let urlSession = URLSession(configuration: .ephemeral, delegate: AppDelegate(), delegateQueue: nil)
            return Session(
                transport: URLSessionTransport(session: urlSession, maximumResponseSize: maximumResponseSize),
                callbackQueue: OperationQueue())
        #if os(Linux)
            case .curl:
                return try Session(
                    transport: CurlTransport(maximumResponseSize: maximumResponseSize), callbackQueue: OperationQueue())
        #endif
        }
    }
}

/// A `URLSession` delegate of an app's own, which leaves every decision to the default.
final class AppDelegate: NSObject, URLSessionDataDelegate, Sendable {}
