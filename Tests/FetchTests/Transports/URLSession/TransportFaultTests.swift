import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each network fault ends a call with the same ``FetchError`` on every transport, which the default ``RetryPolicy``
/// treats alike (the table in ChoosingATransport.md), against loopback servers.
@Suite struct TransportFaultTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// The fault a call ended with: the `URLError` code of a transport failure, or `timedOut`.
    enum Fault: Equatable, CustomStringConvertible {
        case transport(URLError.Code)
        case timedOut

        var description: String {
            switch self {
            case .transport(let code): "URLError \(code.rawValue)"
            case .timedOut: "timedOut"
            }
        }
    }

    /// The fault of `url` over `initialiser`, with its message, and whether the default policy retries it.
    func fault(of url: URL, over initialiser: SessionInitialiser, timeout: TimeInterval = 10) async throws
        -> (fault: Fault, message: String, retried: Bool)
    {
        let session = try initialiser.makeSession()
        let result: Result<Data, any Error> = await Result {
            try await session.perform(APIRequest(url).timeout(timeout))
        }
        let error = try fetchError(result)
        let retried = Self.isRetried(error)
        switch error.kind {
        case .transport(let urlError, _):
            return (.transport(urlError.code), "\(error)", retried)
        case .timedOut:
            return (.timedOut, "\(error)", retried)
        default:
            throw TestServerError("expected a transport failure or a timeout, got \(error)")
        }
    }

    static func isRetried(_ error: any Error) -> Bool {
        RetryPolicy().decide(after: .failure(error), method: .get, attempt: 1, now: Date(), random: 0) != .deliver
    }

    static func isCurl(_ initialiser: SessionInitialiser) -> Bool {
        #if os(Linux)
            initialiser == .curl
        #else
            false
        #endif
    }

    static var transports: [SessionInitialiser] {
        #if os(Linux)
            [.configuration, .shared, .curl]
        #else
            [.configuration, .shared]
        #endif
    }

    @Test(arguments: transports)
    func aRefusedConnectionCannotConnectAndIsRetried(_ initialiser: SessionInitialiser) async throws {
        struct Port: Decodable, Parsable { let port: Int }
        let closed: Port = try await Session(
            transport: URLSessionTransport(configuration: .ephemeral), callbackQueue: OperationQueue()
        )
        .perform(TestRequest(server.url("/closed-port")))
        let url = try #require(URL(string: "http://127.0.0.1:\(closed.port)/x"))
        let (fault, message, retried) = try await fault(of: url, over: initialiser)
        #expect(fault == .transport(.cannotConnectToHost))
        #expect(message.contains("GET \(url.absoluteString): could not reach the server"), "\(message)")
        #expect(retried)
    }

    @Test(arguments: transports)
    func aResetConnectionIsLostAndRetried(_ initialiser: SessionInitialiser) async throws {
        let (fault, message, retried) = try await fault(of: server.url("/faults/reset"), over: initialiser)
        #expect(fault == .transport(.networkConnectionLost))
        #expect(message.contains("the connection to the server was lost"), "\(message)")
        #expect(retried)
    }

    @Test(arguments: transports)
    func aConnectionClosedBeforeAnyAnswerIsLostAndRetried(_ initialiser: SessionInitialiser) async throws {
        let url = server.url("/drop/\(UUID().uuidString)?times=100")
        let (fault, message, retried) = try await fault(of: url, over: initialiser)
        #expect(fault == .transport(.networkConnectionLost))
        #expect(message.contains("the connection to the server was lost"), "\(message)")
        #expect(retried)
    }

    @Test(arguments: transports)
    func aBodyCutMidwayIsALostConnectionThatSaysHowMuchArrived(_ initialiser: SessionInitialiser) async throws {
        let (fault, message, retried) = try await fault(of: server.url("/faults/cut"), over: initialiser)
        #expect(fault == .transport(.networkConnectionLost))
        #expect(message.contains("the connection to the server was lost"), "\(message)")
        // URLSession's transport counts the body itself; libcurl says what was missing.
        let said = Self.isCurl(initialiser) ? "with 500 bytes remaining" : "closed after 500 of 1000 bytes of the body"
        #expect(message.contains(said), "\(message)")
        #expect(retried)
    }

    @Test(arguments: transports)
    func aServerThatNeverAnswersTimesOut(_ initialiser: SessionInitialiser) async throws {
        let (fault, _, retried) = try await fault(of: server.url("/delay/5000"), over: initialiser, timeout: 0.5)
        #expect(fault == .timedOut)
        #expect(retried)
    }

    #if os(Linux)
        @Test(arguments: transports)
        func anUntrustedCertificateIsATLSFailureNotRetried(_ initialiser: SessionInitialiser) async throws {
            let tls = try TLSTestServer.running()
            let (fault, message, retried) = try await fault(of: tls.baseURL.appending(path: "x"), over: initialiser)
            #expect(fault == .transport(.serverCertificateUntrusted))
            #expect(message.contains("the secure connection failed"), "\(message)")
            #expect(!retried)
        }

        /// libcurl's transport, given the counts, words a body cut midway as the URLSession transport does.
        @Test func libcurlsCutBodySaysHowMuchArrivedWhenItIsTold() throws {
            let url = try #require(URL(string: "http://127.0.0.1:9/cut"))
            let detail = "transfer closed with 500 bytes remaining to read"
            let told = CurlFailure.error(for: 18, detail: detail, url: url, received: (500, 1000))  // PARTIAL_FILE
            guard case .transport(let error, _) = told.fetchKind else {
                Issue.record("expected a transport error, got \(told)")
                return
            }
            #expect(error.code == .networkConnectionLost)
            #expect(error.localizedDescription.hasPrefix("the connection closed after 500 of 1000 bytes of the body ("))
            #expect(error.localizedDescription.contains(detail))
            let untold = CurlFailure.error(for: 18, detail: detail, url: url)
            #expect("\(untold)".contains(detail) && !"\(untold)".contains("closed after"))
        }

        /// No lookup is made: each transport's own code for a name that does not resolve maps to the same error.
        @Test func aNameThatDoesNotResolveCannotFindTheHostOnBoth() {
            #expect(CurlFailure.urlErrorCode(for: 6) == .cannotFindHost)  // CURLE_COULDNT_RESOLVE_HOST
            // swift-corelibs-foundation reports libcurl's COULDNT_RESOLVE_HOST as cannotFindHost itself.
            let corelibs = URLError(.cannotFindHost)
            #expect(Exchange.sameOnEveryTransport(corelibs).code == .cannotFindHost)
            #expect(Self.isRetried(FetchError.transport(corelibs)))
        }
    #endif

    /// swift-corelibs-foundation's `-1` becomes the code the same fault has elsewhere, and only for those faults.
    @Test func corelibsUnknownErrorsGetTheCodeOfTheirFault() {
        func code(_ message: String) -> URLError.Code {
            Exchange.sameOnEveryTransport(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: message])).code
        }
        #expect(code("transfer closed with 500 bytes remaining to read") == .networkConnectionLost)
        #expect(code("SSL certificate problem: self-signed certificate") == .serverCertificateUntrusted)
        #expect(code("OpenSSL SSL_connect: SSL_ERROR_SYSCALL") == .secureConnectionFailed)
        #expect(code("Send failure: Broken pipe") == .networkConnectionLost)
        #expect(code("Recv failure: Connection reset by peer") == .networkConnectionLost)
        #expect(code("something else") == .unknown)
        let empty = URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "Empty reply from server"])
        #expect(Exchange.sameOnEveryTransport(empty).code == .networkConnectionLost)
        #expect(Exchange.sameOnEveryTransport(URLError(.badServerResponse)).code == .badServerResponse)
        #expect(Exchange.sameOnEveryTransport(URLError(.timedOut)).code == .timedOut)
    }
}
