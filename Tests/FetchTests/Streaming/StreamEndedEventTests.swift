import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stream's body ends after its call has finished (the head): its `streamEnded` event says how, once, with what the
/// reader got and, over a transport, the attempt's metrics to the last byte. Over the doubles first, then against
/// the loopback server on every transport.
@Suite struct StreamEndedEventTests {
    let request = TestRequest(URL(string: "https://api.example.com/export")!)

    private static func chunks(_ texts: String...) -> MockStream {
        MockStream(connections: [MockStream.Connection(steps: texts.map { .chunk(Data($0.utf8)) })])
    }

    @Test func aBodyReadToItsEndIsReportedOnceAfterTheCallFinished() async throws {
        let events = Captured<FetchEvent>()
        let stream = try await Self.chunks("abc", "defg").with(.observe(events.capture)).stream(request)
        #expect(!events.values.contains { $0.name == .streamEnded }, "the body has not been read yet")
        var read = 0
        for try await chunk in stream {
            read += chunk.count
        }
        #expect(
            events.values.map(\.name.description) == [
                "started", "attemptStarted", "attemptFinished", "finished", "streamEnded",
            ])
        let ended = try #require(events.values.last)
        #expect(ended.bytes == 7)
        #expect(read == 7)
        #expect(ended.error == nil)
        #expect(ended.status == 200)
        #expect(ended.attempt == 1)
        #expect(ended.metrics == nil, "a double measures nothing")
    }

    @Test func aReaderThatStopsEndsTheBodyAsCancelledWithWhatItRead() async throws {
        let events = Captured<FetchEvent>()
        let stream = try await Self.chunks("abc", "defg", "hi").with(.observe(events.capture)).stream(request)
        for try await _ in stream {
            break
        }
        let ended = events.values.filter { $0.name == .streamEnded }
        #expect(ended.count == 1)
        #expect(ended.first?.bytes == 3)
        #expect((ended.first?.error as? FetchError)?.code == .cancelled)
    }

    @Test func aStreamDroppedUnreadIsReportedAsCancelled() async throws {
        let events = Captured<FetchEvent>()
        do {
            let stream = try await Self.chunks("abc").with(.observe(events.capture)).stream(request)
            #expect(stream.response.status == 200)
        }
        let ended = events.values.filter { $0.name == .streamEnded }
        #expect(ended.count == 1)
        #expect(ended.first?.bytes == 0)
        #expect((ended.first?.error as? FetchError)?.code == .cancelled)
    }

    @Test func aFailureMidBodyIsTheEndsError() async throws {
        let mock = MockStream(connections: [
            MockStream.Connection(steps: [.chunk(Data("a".utf8)), .fail(URLError(.networkConnectionLost))])
        ])
        let events = Captured<FetchEvent>()
        let stream = try await mock.with(.observe(events.capture)).stream(request)
        await #expect(throws: (any Error).self) {
            for try await _ in stream {}
        }
        let ended = events.values.filter { $0.name == .streamEnded }
        #expect(ended.count == 1)
        #expect(ended.first?.bytes == 1)
        #expect(ended.first?.error != nil)
        #expect((ended.first?.error as? FetchError)?.code != .cancelled)
    }
}

/// The same against the loopback server: the last byte and the body's bytes come from the transport.
@Suite struct StreamEndedMetricsTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    @Test(arguments: SessionTransport.allCases)
    func theEndOfAStreamCarriesItsLastByteAndItsBytes(on transport: SessionTransport) async throws {
        let events = Captured<FetchEvent>()
        let session = try makeSession(transport).with(.observe(events.capture))
        // Three events, each after 100 ms: the last byte comes at least 300 ms after the head.
        let stream = try await session.stream(TestRequest(server.url("/stream/ticks?count=3&interval=100")))
        #expect(stream.response.metrics?.duration == nil, "the head is measured before its body")
        var read = 0
        for try await chunk in stream {
            read += chunk.count
        }
        let names = events.values.map(\.name.description)
        #expect(names.last == "streamEnded")
        #expect(names.filter { $0 == "streamEnded" }.count == 1)
        let ended = try #require(events.values.last)
        #expect(ended.error == nil)
        #expect(ended.bytes == read)
        let metrics = try #require(ended.metrics)
        let lastByte = try #require(metrics.duration)
        let firstByte = try #require(metrics.timeToFirstByte)
        #expect(lastByte >= 0.3)
        #expect(lastByte >= firstByte)
        #expect(lastByte < 30, "a loaded machine, but not that loaded")
        #expect(ended.duration == lastByte)
        #expect(metrics.responseBodyDecodedBytes == read)
        #expect(metrics.start == stream.response.metrics?.start)
    }

    @Test(arguments: SessionTransport.allCases)
    func aBodyCutShortEndsWithTheTransportsErrorAndNoMetrics(on transport: SessionTransport) async throws {
        let events = Captured<FetchEvent>()
        let session = try makeSession(transport).with(.observe(events.capture))
        // 1,000 bytes announced, the connection closed after 500.
        let stream = try await session.stream(TestRequest(server.url("/faults/cut?length=1000&sent=500")))
        var read = 0
        await #expect(throws: FetchError.self) {
            for try await chunk in stream {
                read += chunk.count
            }
        }
        let ended = events.values.filter { $0.name == .streamEnded }
        #expect(ended.count == 1)
        #expect(ended.first?.bytes == read)
        #expect(ended.first?.error is FetchError)
        #expect(ended.first?.metrics == nil, "the body did not arrive whole")
    }

    @Test(arguments: SessionTransport.allCases)
    func aDownloadsAttemptReportsTheEndOfItsBody(on transport: SessionTransport) async throws {
        let directory = try TemporaryDirectory()
        let events = Captured<FetchEvent>()
        let size = 300_000
        _ = try await transferPerformer(transport).with(.observe(events.capture)).download(
            TestRequest(server.url("/stream/generated/\(size)")), to: directory.url.appending(path: "body.bin")
        ).value
        #expect(
            events.values.map(\.name.description) == [
                "started", "attemptStarted", "attemptFinished", "finished", "streamEnded",
            ])
        let ended = try #require(events.values.last)
        #expect(ended.bytes == size)
        #expect(ended.metrics?.responseBodyDecodedBytes == size)
        #expect(ended.metrics?.duration ?? -1 >= ended.metrics?.timeToFirstByte ?? .infinity)
    }
}
