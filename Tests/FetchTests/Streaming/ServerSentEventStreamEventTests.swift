import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An event source's connections report to one set of observers, and each reconnection is announced before its
/// wait.
@Suite struct ServerSentEventStreamEventTests {
    let request = TestRequest("https://api.example.com/notifications")

    @Test func eachReconnectionIsReportedBeforeItsWaitToTheFirstCallsObserver() async throws {
        let mock = MockStream(connections: [
            .events([ServerSentEvent(id: "1", data: "one")], retry: 500),
            .events([ServerSentEvent(id: "2", data: "two")], then: URLError(.networkConnectionLost)),
            .noContent,
        ])
        let events = Captured<FetchEvent>()
        let scheduler = TestScheduler()
        var received: [String] = []
        for try await event in mock.with(.observe(events.capture)).events(request, scheduler: scheduler) {
            received.append(event.data)
        }

        #expect(received == ["one", "two"])
        // Each connection ends its body (streamEnded) before the stream waits to reconnect.
        let connection = ["started", "attemptStarted", "attemptFinished", "finished", "streamEnded"]
        #expect(
            events.values.map(\.name.description)
                == connection + ["reconnecting"] + connection + ["reconnecting"] + connection)
        let reconnections = events.values.filter { $0.name == .reconnecting }
        try #require(reconnections.count == 2)
        #expect(reconnections.map(\.attempt) == [2, 3])
        #expect(reconnections.map(\.delay) == [0.5, 0.5])
        #expect(reconnections.map(\.lastEventID) == ["1", "2"])
        #expect(reconnections[0].error == nil)
        #expect(reconnections[1].error != nil)
        #expect(reconnections.allSatisfy { $0.request.url == request.url })
        // One call's observers across connections: the attempts count on.
        #expect(events.values.filter { $0.name == .attemptStarted }.map(\.attempt) == [1, 2, 3])
        #expect(scheduler.delays == [0.5, 0.5])
    }

    @Test func aConnectionThatCannotOpenIsReportedAsTheErrorOfTheNextReconnection() async throws {
        let mock = MockStream(connections: [
            .events([ServerSentEvent(id: "7", data: "one")]),
            .unreachable(URLError(.cannotConnectToHost)),
            .noContent,
        ])
        let events = Captured<FetchEvent>()
        let policy = ReconnectPolicy(backoff: Backoff(initialDelay: 1, maximumDelay: 60, jitter: 0))
        for try await _ in mock.with(.observe(events.capture)).events(
            request, reconnectPolicy: policy, scheduler: TestScheduler())
        {}

        let reconnections = events.values.filter { $0.name == .reconnecting }
        try #require(reconnections.count == 2)
        #expect(reconnections.map(\.attempt) == [2, 3])
        #expect(reconnections.map(\.delay) == [1, 2])
        #expect(reconnections.map(\.lastEventID) == ["7", "7"])
        #expect(reconnections[0].error == nil)
        guard case .transport = reconnections[1].error?.fetchKind else {
            Issue.record("expected the failed opening's error, got \(String(describing: reconnections[1].error))")
            return
        }
    }

    @Test func aStreamWithoutAnObserverReportsNothingAndStillReconnects() async throws {
        let mock = MockStream(connections: [.events([ServerSentEvent(data: "one")]), .noContent])
        var received: [String] = []
        for try await event in mock.events(request, scheduler: TestScheduler()) {
            received.append(event.data)
        }
        #expect(received == ["one"])
        #expect(mock.requests.count == 2)
    }

    @Test(arguments: SessionTransport.allCases)
    func overTheLoopbackServerTheReconnectionIsReportedBeforeTheNewConnectionsAttempt(
        on transport: SessionTransport
    ) async throws {
        let server = try TestServer.running()
        let request = TestRequest(server.url("/stream/reconnect/\(UUID().uuidString)?retry=400"))
        let events = Captured<FetchEvent>()
        let scheduler = TestScheduler()
        var received: [String] = []
        for try await event in try makeSession(transport).with(.observe(events.capture)).events(
            request, scheduler: scheduler)
        {
            received.append(event.data)
        }

        #expect(received == ["one", "two", "after 2"])
        let names = events.values.map(\.name.description)
        // Each connection ends its body (streamEnded) before the stream waits to reconnect.
        let connection = ["started", "attemptStarted", "attemptFinished", "finished", "streamEnded"]
        #expect(names == connection + ["reconnecting"] + connection + ["reconnecting"] + connection)
        let reconnections = events.values.filter { $0.name == .reconnecting }
        try #require(reconnections.count == 2)
        #expect(reconnections.map(\.attempt) == [2, 3])
        #expect(reconnections.map(\.delay) == [0.4, 0.4])
        #expect(reconnections.map(\.lastEventID) == ["2", "4"])
        #expect(events.values.filter { $0.name == .attemptStarted }.map(\.attempt) == [1, 2, 3])
        #expect(events.values.last?.status == 204)
    }
}
