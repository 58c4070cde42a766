import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request without a timeout of its own gets the configuration's `timeoutIntervalForRequest` with its `URLSession`
/// meaning, on both transports: how long the server may send nothing, not how long the whole exchange may take.
@Suite struct IdleTimeoutTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// The faces whose idle timeout a test can set: a configuration's `timeoutIntervalForRequest` (a `URLSession` of
    /// the transport's own, or the caller's), or libcurl's. `Session()` over `URLSession.shared` keeps its 60 s.
    enum Face: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case configuration
        case callersURLSession
        #if os(Linux)
            case curl
        #endif

        var testDescription: String { rawValue }

        /// A session of this face whose server may stay silent for `seconds`.
        func makeSession(idleTimeout seconds: TimeInterval) throws -> Session {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = seconds
            switch self {
            case .configuration:
                return Session(
                    transport: URLSessionTransport(configuration: configuration), callbackQueue: OperationQueue())
            case .callersURLSession:
                return Session(
                    transport: URLSessionTransport(session: URLSession(configuration: configuration)),
                    callbackQueue: OperationQueue())
            #if os(Linux)
                case .curl:
                    return try Session(
                        transport: CurlTransport(
                            options: CurlTransport.Options(), libraryName: "libcurl.so.4",
                            idleTimeout: seconds),
                        callbackQueue: OperationQueue())
            #endif
            }
        }
    }

    /// Twelve bytes, one every 0.4 s: 4.8 s in all, longer than the idle timeout of 3 s, but never silent for
    /// that long. As a whole-exchange deadline, the timeout failed the call at 3 s. The gaps are far below the
    /// timeout (libcurl's check is less than a byte a second over the timeout's seconds), so that a server thread
    /// the loaded suite holds back for a second cannot make the call look idle: with 0.3 s gaps and a 1 s timeout,
    /// CI's load once did.
    @Test(arguments: Face.allCases)
    func aBodyThatKeepsArrivingOutlastsTheIdleTimeout(_ face: Face) async throws {
        let session = try face.makeSession(idleTimeout: 3)
        let body: Data = try await session.perform(APIRequest(server.url("/faults/trickle/12?every=0.4")))
        #expect(body == Data(String(repeating: "x", count: 12).utf8))
    }

    /// A server that sends its head and then nothing fails the call with `FetchError.timedOut`; the route would
    /// send the last byte after 30 s, so a call that did not time out succeeds and fails the test.
    @Test(arguments: Face.allCases)
    func aServerThatGoesSilentTimesOut(_ face: Face) async throws {
        let session = try face.makeSession(idleTimeout: 1)
        let url = server.url("/faults/silent")
        let result: Result<Data, any Error> = await Result { try await session.perform(APIRequest(url)) }
        let error = try fetchError(result)
        #expect(String(describing: error).contains("timed out"), "\(error)")
        #expect(error.request?.url == url)
    }

    /// A request's own timeout stays the deadline of the whole exchange, whatever the idle timeout.
    @Test(arguments: Face.allCases)
    func aRequestsOwnTimeoutIsStillTheWholeExchange(_ face: Face) async throws {
        let session = try face.makeSession(idleTimeout: 60)
        let url = server.url("/faults/trickle/40?every=0.2")
        let result: Result<Data, any Error> = await Result { try await session.perform(APIRequest(url).timeout(1)) }
        let error = try fetchError(result)
        #expect(String(describing: error).contains("timed out"), "\(error)")
    }
}
