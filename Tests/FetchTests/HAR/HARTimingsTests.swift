import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HAR entries' `timings`, `serverIPAddress` and `connection`, from the response's metrics.
@Suite struct HARTimingsTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    @Test(arguments: SessionTransport.allCases)
    func aRecordingOfARealCallHasTimingsThatValidateAndReplay(_ transport: SessionTransport) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("timings-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        let recorded = try makeSession(transport).with(.record(to: file))
        let request = TestRequest(server.url("/delay/50"))
        let live: Response = try await recorded.perform(request)
        let metrics = try #require(live.metrics)

        let verdict = try HARValidator.check(file)
        #expect(verdict.isValid, "\(verdict.output)")
        let entry = try #require(try HAR(contentsOf: file).log.entries.first)
        let timings = entry.timings
        #expect(timings.wait >= 50)
        #expect(timings.blocked == -1)
        #expect(abs(entry.time - timings.total) < 0.001)
        #expect(abs(entry.time - (metrics.duration ?? 0) * 1000) < 0.01)
        if metrics.domainLookup != nil {
            // A new connection: HAR's connect includes TLS, none here.
            #expect(timings.dns ?? -1 >= 0)
            #expect(timings.connect ?? -1 >= 0)
            #expect(timings.ssl == -1)
            #expect(entry.serverIPAddress == "127.0.0.1")
            #expect(entry.connection == server.baseURL.port.map(String.init))
        } else {
            #expect(timings.dns == -1)
            #expect(timings.connect == -1)
            #expect(entry.serverIPAddress == nil)
        }

        // The heads' sizes and the version, as the transport counted them (libcurl), else unknown.
        #expect(entry.request.headersSize == metrics.requestHeaderBytes ?? -1)
        #expect(entry.response.headersSize == metrics.responseHeaderBytes ?? -1)
        #expect(entry.response.httpVersion == metrics.httpVersion ?? "HTTP/1.1")
        if transport == .curl {
            #expect(entry.request.headersSize > 20, "a request line and Host at least")
            #expect(entry.response.headersSize > 17, "a status line at least")
        }

        let offline = try MockPerformer(replaying: file)
        let replayed = Captured<Result<Response, any Error>>()
        offline.perform(request, completion: replayed.capture)
        #expect(try replayed.value?.get().data == live.data)
    }

    @Test func aReusedConnectionHasNoConnectionPhases() {
        var metrics = AttemptMetrics(start: Date(), duration: 0.030)
        metrics.isReusedConnection = true
        metrics.timeToFirstByte = 0.020
        let timings = HAR.Timings.measured(metrics, total: 1)
        #expect(timings.blocked == -1)
        #expect(timings.dns == -1)
        #expect(timings.connect == -1)
        #expect(timings.ssl == -1)
        #expect(timings.send == 0)
        #expect(timings.wait == 20)
        #expect(timings.receive == 10)
        #expect(timings.total == 30)
    }

    @Test func connectIncludesTLSAndThePhasesAddUpToTheLastByte() {
        var metrics = AttemptMetrics(start: Date(), duration: 0.100)
        metrics.domainLookup = 0.001
        metrics.connect = 0.002
        metrics.secureConnection = 0.010
        metrics.timeToFirstByte = 0.050
        let timings = HAR.Timings.measured(metrics, total: 1)
        #expect(timings.dns == 1)
        #expect(timings.connect == 12)
        #expect(timings.ssl == 10)
        #expect(timings.wait == 37)
        #expect(timings.receive == 50)
        #expect(abs(timings.total - 100) < 0.000_001)
    }

    @Test func aHeadWithoutAnEndCountsTheCallsTime() {
        var metrics = AttemptMetrics(start: Date())
        metrics.timeToFirstByte = 0.010
        let timings = HAR.Timings.measured(metrics, total: 0.025)
        #expect(timings.wait == 10)
        #expect(timings.receive == 15)
    }
}
