import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports a `Session` runs on: the integration suites run each test on every one of them, against the same
/// loopback server with the same assertions.
enum SessionTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    #if os(Linux)
        case curl
    #endif

    var testDescription: String { rawValue }
}

/// A session of its own on `transport` for a test, with completions on a queue of its own (`configuration` is for
/// the `URLSession`: a curl session has none).
func makeSession(
    _ transport: SessionTransport,
    configuration: URLSessionConfiguration = .ephemeral,
    callbackQueue: OperationQueue = OperationQueue(),
    redirectPolicy: RedirectPolicy = .default,
    maximumResponseSize: Int = 100 << 20
) throws -> Session {
    switch transport {
    case .urlSession:
        return Session(
            transport: URLSessionTransport(
                configuration: configuration, redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize),
            callbackQueue: callbackQueue)
    #if os(Linux)
        case .curl:
            return try Session(
                transport: CurlTransport(redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize),
                callbackQueue: callbackQueue)
    #endif
    }
}
