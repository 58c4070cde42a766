import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MockStream`, and through it the SSE client's reconnection logic, with no network and in virtual time.
@Suite struct MockStreamTests {
    let request = TestRequest("https://api.example.test/events")

    @Test func answersWithScriptedChunks() async throws {
        let mock = MockStream(connections: [
            MockStream.Connection(
                headers: ["Content-Type": "application/x-ndjson"],
                steps: [.chunk(Data("{\"n\":1,\"na".utf8)), .chunk(Data("me\":\"a\"}\n{\"n\":2,\"name\":\"b\"}".utf8))]
            )
        ])
        struct Item: Decodable, Equatable {
            let n: Int
            let name: String
        }
        let stream = try await mock.stream(request)
        #expect(stream.response.headers["content-type"] == "application/x-ndjson")
        var items: [Item] = []
        for try await item in stream.jsonLines(of: Item.self) {
            items.append(item)
        }
        #expect(items == [Item(n: 1, name: "a"), Item(n: 2, name: "b")])
    }

    @Test func aDisconnectReconnectsWithTheLastEventIDAfterTheServersRetryInVirtualTime() async throws {
        let mock = MockStream(connections: [
            .events(
                [ServerSentEvent(id: "1", data: "one"), ServerSentEvent(id: "2", event: "update", data: "two")],
                retry: 500, then: URLError(.networkConnectionLost)),
            .events([ServerSentEvent(id: "3", data: "three\nlines")]),
            .noContent,
        ])
        let scheduler = TestScheduler()
        var received: [ServerSentEvent] = []
        for try await event in mock.events(request, scheduler: scheduler) {
            received.append(event)
        }
        #expect(
            received == [
                ServerSentEvent(id: "1", data: "one"),
                ServerSentEvent(id: "2", event: "update", data: "two"),
                ServerSentEvent(id: "3", data: "three\nlines"),
            ])
        #expect(scheduler.delays == [0.5, 0.5])
        // Header names as URLRequest keeps them differ by platform (Linux sends `Last-Event-Id`): ask the URLRequest.
        let sent = try mock.requests.map { try $0.makeURLRequest() }
        try #require(sent.count == 3)
        #expect(sent[0].value(forHTTPHeaderField: "Last-Event-ID") == nil)
        #expect(sent[1].value(forHTTPHeaderField: "Last-Event-ID") == "2")
        #expect(sent[2].value(forHTTPHeaderField: "Last-Event-ID") == "3")
        #expect(
            sent.allSatisfy {
                $0.value(forHTTPHeaderField: "Accept") == "text/event-stream"
                    && $0.value(forHTTPHeaderField: "Cache-Control") == "no-cache"
            })
    }

    @Test func failedReconnectionsBackOffAndGiveUpAfterTheMaximumAttempts() async throws {
        let mock = MockStream(connections: [
            .events([ServerSentEvent(data: "one")]),
            .unreachable(URLError(.cannotConnectToHost)),
            .unreachable(URLError(.cannotConnectToHost)),
            .events([ServerSentEvent(data: "never")]),
        ])
        let scheduler = TestScheduler()
        let policy = ReconnectPolicy(
            backoff: Backoff(initialDelay: 1, multiplier: 2, maximumDelay: 60, jitter: 0), maximumFailuresInARow: 2)
        var received: [String] = []
        let error = await #expect(throws: FetchError.self) {
            for try await event in mock.events(request, reconnectPolicy: policy, scheduler: scheduler) {
                received.append(event.data)
            }
        }
        #expect(received == ["one"])
        #expect(scheduler.delays == [1, 2])
        guard case .attemptsExhausted(let attempts, let lastError as FetchError, _) = error.fetchKind,
            case .transport(let urlError, _) = lastError.kind
        else {
            Issue.record("expected attemptsExhausted after a transport error, got \(String(describing: error))")
            return
        }
        #expect(attempts == 2)
        #expect(urlError.code == .cannotConnectToHost)
    }

    @Test func aSuccessfulReconnectionResetsTheBackoff() async throws {
        let mock = MockStream(connections: [
            .unreachable(URLError(.cannotConnectToHost)),
            .events([ServerSentEvent(data: "one")]),
            .events([ServerSentEvent(data: "two")]),
            .noContent,
        ])
        let scheduler = TestScheduler()
        var received: [String] = []
        for try await event in mock.events(
            request, reconnectPolicy: ReconnectPolicy(backoff: Backoff(initialDelay: 1, maximumDelay: 60, jitter: 0)),
            scheduler: scheduler)
        {
            received.append(event.data)
        }
        #expect(received == ["one", "two"])
        #expect(scheduler.delays == [2, 1, 1])
    }

    @Test func aStatusOutside2xxEndsTheEventsWithTheErrorParsersError() async throws {
        let mock = MockStream(connections: [.status(401, body: #"{"error":true,"reason":"log in"}"#)])
        let error = await #expect(throws: APIError.self) {
            for try await _ in mock.events(request, errorParser: DecodableErrorParser<APIError>()) {}
        }
        #expect(error?.reason == "log in")
    }

    @Test func aWrongContentTypeEndsTheEventsWithNotEventStream() async throws {
        let mock = MockStream(connections: [
            MockStream.Connection(headers: ["Content-Type": "text/html"], steps: [.chunk(Data("<html>".utf8))])
        ])
        let error = await #expect(throws: FetchError.self) {
            for try await _ in mock.events(request) {}
        }
        guard case .notEventStream = error.fetchKind else {
            Issue.record("expected notEventStream, got \(String(describing: error))")
            return
        }
        #expect(mock.cancelledStreams == 1)
    }

    @Test func leavingTheLoopStopsTheStreamAndReconnectsNoMore() async throws {
        let mock = MockStream(connections: [
            .events([ServerSentEvent(data: "one"), ServerSentEvent(data: "two")]),
            .events([ServerSentEvent(data: "never")]),
        ])
        for try await event in mock.events(request, scheduler: TestScheduler()) {
            #expect(event.data == "one")
            break
        }
        #expect(mock.cancelledStreams == 1)
        #expect(mock.requests.count == 1)
    }

    @Test func cancellingTheTaskDuringTheReconnectionWaitEndsItWithCancelled() async throws {
        let mock = MockStream(connections: [.events([ServerSentEvent(data: "one")]), .noContent])
        let scheduler = TestScheduler(runsImmediately: false)
        let received = Captured<String>()
        let consumer = Task {
            for try await event in mock.events(request, scheduler: scheduler) {
                received.capture(event.data)
            }
        }
        #expect(try await received.first() == "one")
        // The consumer now waits for the virtual clock, which never moves.
        while scheduler.delays.isEmpty {
            await Task.yield()
        }
        consumer.cancel()
        let result = await consumer.result
        #expect(throws: FetchError.self) { try result.get() }
        #expect(mock.requests.count == 1)
    }
}
