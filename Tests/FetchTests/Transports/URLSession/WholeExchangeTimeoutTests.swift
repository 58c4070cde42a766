import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's timeout is the whole exchange on every initialiser and transport, not how long the server may stay
/// silent: a server that trickles its body cannot hold a call past it.
@Suite struct WholeExchangeTimeoutTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// 40 bytes, one every 0.2 s: 8 s in all, never silent for more than 0.2 s. With an idle timeout the call
    /// would succeed after 8 s; with the whole-exchange timeout it fails at 1 s.
    @Test(arguments: SessionInitialiser.allCases)
    func aTricklingBodyTimesOutAtTheRequestsTimeout(_ initialiser: SessionInitialiser) async throws {
        let session = try initialiser.makeSession()
        let url = server.url("/faults/trickle/40?every=0.2")
        let result: Result<Data, any Error> = await Result { try await session.perform(APIRequest(url).timeout(1)) }
        guard case .timedOut(let request, let seconds) = try fetchError(result).fetchKind else {
            Issue.record("expected the timeout, got \(result)")
            return
        }
        #expect(request?.url == url)
        #expect(seconds == nil || seconds == 1)
    }

    /// A trickle that ends within the timeout arrives whole.
    @Test(arguments: SessionInitialiser.allCases)
    func aTrickleWithinTheTimeoutArrives(_ initialiser: SessionInitialiser) async throws {
        let session = try initialiser.makeSession()
        let body: Data = try await session.perform(APIRequest(server.url("/faults/trickle/3?every=0.05")).timeout(20))
        #expect(body == Data("xxx".utf8))
    }
}
