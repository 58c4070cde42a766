import Fetch
import FetchTesting
import Foundation
import Testing

/// `ServerSentEventStream` over `MockStream`, in virtual time: how long it waits before reconnecting, and how it
/// ends on a line that is too long.
@Suite struct ServerSentEventStreamTests {
    let request = TestRequest("https://api.example.test/events")

    /// A connection that sends only `retry: <milliseconds>` and ends at once.
    static func retryOnly(_ milliseconds: String) -> MockStream.Connection {
        MockStream.Connection(
            headers: ["Content-Type": "text/event-stream"], steps: [.chunk(Data("retry: \(milliseconds)\n\n".utf8))])
    }

    @Test func aRetryOfCenturiesWaitsNoLongerThanTheMaximumDelay() async throws {
        let mock = MockStream(connections: [
            .events([ServerSentEvent(data: "one")], retry: 9_999_999_999_999),
            .events([ServerSentEvent(data: "two")]),
            .noContent,
        ])
        let scheduler = TestScheduler()
        var received: [String] = []
        let policy = ReconnectPolicy(backoff: Backoff(initialDelay: 3, maximumDelay: 2, jitter: 0))
        for try await event in mock.events(request, reconnectPolicy: policy, scheduler: scheduler) {
            received.append(event.data)
        }
        #expect(received == ["one", "two"])
        #expect(scheduler.delays == [2, 2])
    }

    @Test func aRetryTooLargeForAnIntWaitsTheMaximumDelay() async throws {
        let mock = MockStream(connections: [Self.retryOnly("99999999999999999999999999"), .noContent])
        let scheduler = TestScheduler()
        for try await _ in mock.events(
            request, reconnectPolicy: ReconnectPolicy(backoff: Backoff(initialDelay: 3, maximumDelay: 2, jitter: 0)),
            scheduler: scheduler)
        {}
        #expect(scheduler.delays == [2])
    }

    @Test func connectionsThatEndBeforeAnyEventBackOffFromTheFloorUntilAnEventArrives() async throws {
        let mock = MockStream(
            connections: Array(repeating: Self.retryOnly("0"), count: 4) + [
                .events([ServerSentEvent(data: "finally")]),
                Self.retryOnly("0"),
                .noContent,
            ])
        let scheduler = TestScheduler()
        var received: [String] = []
        // One failed attempt would end the events: an eventless connection is not one, only a longer wait.
        let policy = ReconnectPolicy(maximumFailuresInARow: 1)
        for try await event in mock.events(request, reconnectPolicy: policy, scheduler: scheduler) {
            received.append(event.data)
        }
        #expect(received == ["finally"])
        // Each eventless connection in a row doubles the wait from the floor; the event resets it.
        #expect(scheduler.delays == [0.2, 0.4, 0.8, 1.6, 0.1, 0.2])
    }

    @Test func aLineTooLongEndsTheEventsAfterTheOnesBeforeItWithoutReconnecting() async throws {
        let endless = Data("data: ".utf8) + Data(repeating: 0x78, count: ResponseStream.maximumLineLength)
        let mock = MockStream(connections: [
            MockStream.Connection(
                headers: ["Content-Type": "text/event-stream"],
                steps: [.chunk(Data("id: 1\ndata: before\n\n".utf8) + endless)]),
            .events([ServerSentEvent(data: "never")]),
        ])
        let scheduler = TestScheduler()
        var received: [String] = []
        let error = await #expect(throws: FetchError.self) {
            for try await event in mock.events(request, scheduler: scheduler) {
                received.append(event.data)
            }
        }
        guard case .lineTooLong(ResponseStream.maximumLineLength, let named?) = error.fetchKind else {
            Issue.record("expected lineTooLong naming the request, got \(String(describing: error))")
            return
        }
        #expect(named.url == request.url)
        #expect(received == ["before"])
        #expect(mock.requests.count == 1)
        #expect(scheduler.delays.isEmpty)
    }
}
