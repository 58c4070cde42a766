import Fetch
import FetchTesting
import Foundation
import Testing

@testable import FetchExample

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `API.notifications()`: the live notifications through the API's middlewares, over a double (no network, no real
/// waiting) and over the embedded backend through a real `Session`, where they arrive one by one.
@Suite struct APINotificationsTests {
    static let stream = """
        retry: 200

        id: 1
        event: purchase
        data: {"title": "PO-1002 shipped", "body": "It left the warehouse."}

        id: 2
        event: reminder
        data: {"title": "All-hands meeting", "body": "Main hall."}


        """

    static func header(_ name: String, of request: any Request) -> String? {
        request.headers[name]
    }

    @Test func readsEachEventAsANotificationReconnectsWithLastEventIDAndEndsOn204() async throws {
        let server = MockPerformer { request in
            // Header names as sent may be in another case (corelibs writes Last-Event-Id): looked up without case.
            switch (request.url.path, Self.header("Last-Event-ID", of: request)) {
            case ("/api/users/login", _):
                .json(Fixtures.loginJSON)
            case ("/api/notifications", nil):
                MockResponse(status: 200, headers: ["Content-Type": "text/event-stream"], data: Data(Self.stream.utf8))
            case ("/api/notifications", "2"):
                MockResponse(status: 204)
            default:
                MockResponse(status: 404)
            }
        }
        let spy = SpyPerformer(forwardingTo: server)
        let api = Fixtures.api(spy)
        try await api.logIn(username: "ada", password: "secret")
        let scheduler = TestScheduler()
        var received: [LiveNotification] = []
        // Bounded: a client that never saw the 204 would reconnect for ever.
        for try await notification in api.notifications(scheduler: scheduler) {
            received.append(notification)
            if received.count == 10 {
                break
            }
        }
        #expect(received.map(\.id) == ["1", "2"])
        #expect(received.map(\.kind) == ["purchase", "reminder"])
        #expect(received.first?.title == "PO-1002 shipped" && received.first?.body == "It left the warehouse.")
        let streams = spy.requests.filter { $0.url.path == "/api/notifications" }
        #expect(streams.map { Self.header("Authorization", of: $0) } == ["Bearer t0k3n", "Bearer t0k3n"])
        #expect(streams.map { Self.header("Accept", of: $0) } == ["text/event-stream", "text/event-stream"])
        #expect(streams.map { Self.header("Last-Event-ID", of: $0) } == [nil, "2"])
        #expect(scheduler.delays == [0.2], "the reconnection waits the server's retry: 200 ms")
    }

    @Test func aRefusalEndsTheSequenceWithTheAPIError() async throws {
        let api = Fixtures.api(
            MockPerformer { _ in .json(#"{"error": true, "reason": "log in first"}"#, status: 401) })
        await #expect(throws: APIError.self) {
            for try await _ in api.notifications(scheduler: TestScheduler()) {}
        }
    }

    /// The embedded backend with the notifications paced `interval` apart.
    static func backend(interval milliseconds: Int) throws -> DemoBackend {
        let file = try Data(contentsOf: ExampleFiles.demoData)
        var data = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        var notifications = try #require(data["notifications"] as? [String: Any])
        notifications["intervalMs"] = milliseconds
        data["notifications"] = notifications
        return try DemoBackend(data: JSONSerialization.data(withJSONObject: data), source: ExampleFiles.demoData)
    }

    @Test func theEmbeddedBackendPacesThemThroughASession() async throws {
        // 400 ms apart: the last is sent 1.2 s after the stream opens.
        let interval = 0.4
        let baseURL = DemoURLProtocol.serve(try Self.backend(interval: Int(interval * 1000)))
        defer { DemoURLProtocol.stopServing(baseURL) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [DemoURLProtocol.self]
        let api = API(
            baseURL: baseURL,
            performer: Session(
                transport: URLSessionTransport(configuration: configuration), callbackQueue: OperationQueue()),
            maxPOExpense: Money(cents: 0))
        try await api.logIn(username: "ada", password: "analytical-engine")
        let start = ContinuousClock.now
        var arrivals: [(LiveNotification, Duration)] = []
        for try await notification in api.notifications() {
            arrivals.append((notification, ContinuousClock.now - start))
        }
        try #require(arrivals.count == 3)
        #expect(
            arrivals.map(\.0.title) == [
                "PO-1002 shipped", "Holiday party: RSVP by 10 December", "All-hands meeting in 15 minutes",
            ])
        // The backend paces its parts (DemoBackendTests); here they arrive through a real Session no sooner than
        // sent. That each is handed on as it arrives is StreamLatencyTests' to prove, against a loopback server: a
        // loaded run of the whole suite can starve this consumer until all three are there.
        #expect(arrivals[2].1 >= .seconds(interval * 3), "the last arrived at \(arrivals[2].1), before it was sent")
    }
}
