import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A newline-delimited JSON export of orders (``Order`` per line).
struct ExportOrders: Request {
    let baseURL: URL
    var url: URL { baseURL.appending(path: "orders/export") }
}

/// A log that the server writes line by line.
struct TailLog: Request {
    let baseURL: URL
    var url: URL { baseURL.appending(path: "logs/tail") }
}

/// A Server-Sent Events stream of notices.
struct GetNotices: Request {
    let baseURL: URL
    var url: URL { baseURL.appending(path: "notices") }
}

/// The JSON `data` of a notice event.
struct Notice: Decodable {
    let title: String
}

func streamBytesSample(session: Session) async throws {
    // DOC-BEGIN
    let stream = try await session.stream(ExportOrders(baseURL: baseURL))
    print(stream.response.status)  // the head: status, headers, final URL
    var received = 0
    for try await chunk in stream {  // Data, in order, each as soon as it arrives
        received += chunk.count
    }
    // DOC-END
    _ = received
}

func streamLinesSample(session: Session) async throws {
    // DOC-BEGIN
    for try await line in try await session.stream(TailLog(baseURL: baseURL)).lines {
        print(line)
    }
    for try await order in try await session.stream(ExportOrders(baseURL: baseURL)).jsonLines(of: Order.self) {
        print(order.id)
    }
    // DOC-END
}

func serverSentEventsSample(session: Session) async throws {
    // DOC-BEGIN
    for try await event in session.events(GetNotices(baseURL: baseURL)) {
        if event.event == "order-shipped" {
            let notice = try event.decode(Notice.self)
            print("\(event.id ?? "-"): \(notice.title)")
        }
    }
    // DOC-END
}

// DOC-BEGIN
@Test func readsNoticesAcrossAReconnection() async throws {
    let mock = MockStream(connections: [
        .events([ServerSentEvent(id: "1", data: #"{"title": "Order 7 shipped"}"#)], retry: 1000),
        .events([ServerSentEvent(id: "2", data: #"{"title": "Order 8 shipped"}"#)]),
        .noContent,
    ])
    let scheduler = TestScheduler()
    var titles: [String] = []
    for try await event in mock.events(GetNotices(baseURL: baseURL), scheduler: scheduler) {
        titles.append(try event.decode(Notice.self).title)
    }
    #expect(titles == ["Order 7 shipped", "Order 8 shipped"])
    #expect(try mock.requests[1].makeURLRequest().value(forHTTPHeaderField: "Last-Event-ID") == "1")
    #expect(scheduler.delays == [1, 1])
}
// DOC-END
