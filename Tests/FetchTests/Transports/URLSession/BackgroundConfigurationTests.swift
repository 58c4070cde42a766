import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A background `URLSession` supports no per-task delegate (nor WebSocket tasks), and `URLSessionTransport` sets one
/// on every task: a transport made from a background configuration refuses each call at once, naming it.
@Suite struct BackgroundConfigurationTests {
    /// A background configuration: `background(withIdentifier:)` on Apple platforms; on Linux, which has no
    /// background sessions (swift-corelibs-foundation marks that factory unavailable), one with an identifier set.
    static func backgroundConfiguration(_ identifier: String) -> URLSessionConfiguration {
        #if canImport(FoundationNetworking)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.identifier = identifier
            return configuration
        #else
            return .background(withIdentifier: identifier)
        #endif
    }

    @Test func aTransportMadeFromABackgroundConfigurationRefusesEveryCall() async throws {
        let request = TestRequest("http://127.0.0.1:9/never")  // loopback's discard port, never reached
        let session = Session(
            transport: URLSessionTransport(configuration: Self.backgroundConfiguration("fetch.tests.background")))
        await expectRefusal { let _: Response = try await session.perform(request) }
        await expectRefusal { _ = try await session.stream(request) }
    }

    #if !canImport(FoundationNetworking)
        @Test func aTransportOverABackgroundURLSessionRefusesEveryCall() async throws {
            let request = TestRequest("http://127.0.0.1:9/never")
            let urlSession = URLSession(configuration: Self.backgroundConfiguration("fetch.tests.callers"))
            defer { urlSession.invalidateAndCancel() }
            let session = Session(transport: URLSessionTransport(session: urlSession))
            await expectRefusal { let _: Response = try await session.perform(request) }
            await expectRefusal { _ = try await session.stream(request) }
        }
    #endif

    @Test func aForegroundConfigurationIsNotRefused() async throws {
        let server = try TestServer.running()
        let session = Session(transport: URLSessionTransport(configuration: .ephemeral))
        let response: Response = try await session.perform(TestRequest(server.url("/status/204")))
        #expect(response.status == 204)
    }

    private func expectRefusal(
        _ call: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            try await call()
            Issue.record("a call through a background URLSession was sent", sourceLocation: sourceLocation)
        } catch {
            let text = String(describing: error)
            #expect(text.contains("background URLSession"), "\(text)", sourceLocation: sourceLocation)
            #expect(text.contains("fetch.tests."), "names the configuration: \(text)", sourceLocation: sourceLocation)
            #expect(text.contains("GET http://127.0.0.1:9/never"), "\(text)", sourceLocation: sourceLocation)
        }
    }
}
