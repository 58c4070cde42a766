import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Response.metrics` and the attempt's events, on every transport of a `Session`, against the loopback server.
@Suite struct AttemptMetricsTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// The response to `path`, and the events an observer heard of its call.
    private func call(
        _ path: String, on transport: SessionTransport, policy: RedirectPolicy = .default
    ) async throws -> (Result<Response, any Error>, [FetchEvent]) {
        let session = try makeSession(transport, redirectPolicy: policy)
        let events = Captured<FetchEvent>()
        let observed = session.with(.observe { events.capture($0) })
        do {
            let response: Response = try await observed.perform(TestRequest(server.url(path)))
            return (.success(response), events.values)
        } catch {
            return (.failure(error), events.values)
        }
    }

    /// `/redirect?to=<target>`, as a path.
    private func redirect(to target: String) -> String {
        var components = URLComponents()
        components.path = "/redirect"
        components.queryItems = [URLQueryItem(name: "to", value: target)]
        return components.string ?? "/redirect"
    }

    @Test(arguments: SessionTransport.allCases)
    func theFirstByteWaitsForTheServerAndThePhasesAreInOrder(_ transport: SessionTransport) async throws {
        let before = Date()
        let (result, _) = try await call("/delay/200", on: transport)
        let metrics = try #require(try result.get().metrics)
        #expect(metrics.start >= before.addingTimeInterval(-0.001))
        let firstByte = try #require(metrics.timeToFirstByte)
        let total = try #require(metrics.duration)
        #expect(firstByte >= 0.2)
        #expect(firstByte < 10, "a loaded machine, but not that loaded")
        #expect(total >= firstByte)
        // Each phase ends where the next starts: their running sums stay under the first byte.
        var elapsed = 0.0
        for phase in [metrics.domainLookup, metrics.connect, metrics.secureConnection] {
            #expect(phase ?? 0 >= 0)
            elapsed += phase ?? 0
            #expect(elapsed <= firstByte)
        }
        #if os(Linux)
            // A new session's first call opens a connection, which libcurl measures and corelibs does not.
            #expect((metrics.connect != nil) == (transport == .curl))
        #endif
    }

    @Test(arguments: SessionTransport.allCases)
    func twoRedirectsAreTwoHopsAndTwoEvents(_ transport: SessionTransport) async throws {
        let last = "/echo/metrics-two-hops"
        let first = redirect(to: redirect(to: last))
        let (result, events) = try await call(first, on: transport)
        let metrics = try #require(try result.get().metrics)
        #expect(metrics.redirects.map(\.status) == [302, 302])
        #expect(metrics.redirects.first?.url == server.url(first))
        #expect(metrics.redirects.last?.location == server.url(last))
        #expect(metrics.redirects.first?.location == metrics.redirects.last?.url)
        let redirected = events.filter { $0.name == .redirected }
        #expect(redirected.map(\.redirect) == metrics.redirects)
        #expect(!events.contains { $0.name == .redirectRefused })
        #expect(metrics.duration ?? 0 >= metrics.timeToFirstByte ?? .infinity)
    }

    @Test(arguments: SessionTransport.allCases)
    func aRefusedRedirectIsOneEventWithItsHopAndReason(_ transport: SessionTransport) async throws {
        let last = "/echo/metrics-refused"
        let second = redirect(to: last)
        let (result, events) = try await call(
            redirect(to: second), on: transport, policy: RedirectPolicy(maximumRedirects: 1))
        #expect(throws: FetchError.self) { try result.get() }
        let refused = events.filter { $0.name == .redirectRefused }
        try #require(refused.count == 1, "\(events.map(\.name))")
        #expect(refused[0].redirect?.url == server.url(second))
        #expect(refused[0].redirect?.status == 302)
        #expect(refused[0].redirect?.location == server.url(last))
        #expect(refused[0].reason?.contains("more than 1 redirects") == true)
        #expect(events.filter { $0.name == .redirected }.count == 0, "the followed hop is in no response's metrics")
    }

    @Test(arguments: SessionTransport.allCases)
    func aRedirectAPolicyDoesNotFollowIsRefusedOnce(_ transport: SessionTransport) async throws {
        let (_, events) = try await call(
            redirect(to: "/echo/metrics-unfollowed"), on: transport, policy: RedirectPolicy(maximumRedirects: 0))
        let refused = events.filter { $0.name == .redirectRefused }
        try #require(refused.count == 1, "\(events.map(\.name))")
        #expect(refused[0].redirect?.status == 302)
        #expect(refused[0].redirect?.location == server.url("/echo/metrics-unfollowed"))
        #expect(refused[0].reason?.contains("maximumRedirects is 0") == true)
    }

    @Test(arguments: SessionTransport.allCases)
    func theAttemptFinishedEventCarriesTheResponsesMetrics(_ transport: SessionTransport) async throws {
        let (result, events) = try await call("/echo/metrics-event", on: transport)
        let response = try result.get()
        let finished = try #require(events.first { $0.name == .attemptFinished })
        #expect(finished.metrics == response.metrics)
        #expect(response.metrics?.responseBodyDecodedBytes == response.data?.count)
    }

    #if canImport(FoundationNetworking)
        /// swift-corelibs-foundation measures nothing of the connection: what Fetch cannot know stays `nil`.
        @Test func linuxURLSessionLeavesWhatItCannotKnowNil() async throws {
            let (result, _) = try await call("/echo/metrics-linux", on: .urlSession)
            let response = try result.get()
            let metrics = try #require(response.metrics)
            #expect(metrics.domainLookup == nil)
            #expect(metrics.connect == nil)
            #expect(metrics.secureConnection == nil)
            #expect(metrics.isReusedConnection == nil)
            #expect(metrics.httpVersion == nil)
            #expect(metrics.remoteAddress == nil)
            #expect(metrics.remotePort == nil)
            #expect(metrics.requestHeaderBytes == nil)
            #expect(metrics.responseHeaderBytes == nil)
            #expect(metrics.responseBodyBytes == nil)
            #expect(metrics.requestBodyBytes == 0)
            #expect(metrics.responseBodyDecodedBytes == response.data?.count)
            #expect(metrics.timeToFirstByte != nil)
            #expect(metrics.duration != nil)
            #expect(metrics.redirects.isEmpty)
        }
    #endif

    #if os(Linux)
        /// On Linux both transports open WebSockets over libcurl: the handshake has libcurl's connection phases.
        @Test(arguments: SessionTransport.allCases)
        func aWebSocketHandshakeIsMeasured(_ transport: SessionTransport) async throws {
            let sockets = try WebSocketsServer.running()
            let events = Captured<FetchEvent>()
            let session = try makeSession(transport).with(.observe { events.capture($0) })
            let socket = try await session.webSocket(SessionWebSocketTests.Socket(url: sockets.url("/echo")))
            defer { socket.close() }
            let finished = try #require(events.values.first { $0.name == .attemptFinished })
            #expect(finished.status == 101)
            let metrics = try #require(finished.metrics)
            #expect(metrics.isReusedConnection == false)
            #expect(metrics.connect != nil)
            #expect(metrics.httpVersion == "HTTP/1.1")
            #expect(metrics.remoteAddress == "127.0.0.1")
            #expect(metrics.requestHeaderBytes ?? 0 > 100, "the opening handshake's head")
            let firstByte = try #require(metrics.timeToFirstByte)
            #expect(firstByte >= (metrics.domainLookup ?? 0) + (metrics.connect ?? 0))
        }
    #endif

    @Test func describesItselfInOneLineWithWhatIsKnown() {
        var metrics = AttemptMetrics(start: Date(), duration: 0.212)
        metrics.httpVersion = "HTTP/1.1"
        metrics.remoteAddress = "127.0.0.1"
        metrics.remotePort = 8080
        metrics.isReusedConnection = true
        metrics.domainLookup = 0.0012
        metrics.connect = 0.0003
        metrics.timeToFirstByte = 0.210
        metrics.responseBodyDecodedBytes = 40
        #expect(
            metrics.description
                == "HTTP/1.1 127.0.0.1:8080 reused, dns 1.2 ms, connect 0.3 ms, first byte 210 ms, total 212 ms, 40 B")
        #expect(AttemptMetrics(start: Date()).description == "no metrics")
        var ipv6 = AttemptMetrics(start: Date())
        ipv6.remoteAddress = "::1"
        ipv6.remotePort = 443
        #expect(ipv6.description == "[::1]:443")
    }
}
