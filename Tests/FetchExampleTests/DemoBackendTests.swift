import Foundation
import Testing

@testable import FetchExample

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The embedded backend's rules, which `demo_server.py` shares (the executable tests run the same flow on both).
@Suite struct DemoBackendTests {
    let backend: DemoBackend

    init() throws {
        backend = try DemoBackend(contentsOf: ExampleFiles.demoData)
    }

    func answer(
        _ method: String, _ path: String, authorization: String? = nil, body: String? = nil
    ) -> DemoBackend.Answer {
        var request = URLRequest(url: Fixtures.server.appending(path: path))
        request.httpMethod = method
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        return backend.answer(request, body: body.map { Data($0.utf8) })
    }

    func json(_ answer: DemoBackend.Answer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
    }

    func bearer() throws -> String {
        let login = try json(answer("POST", "api/users/login", authorization: "Basic YWRhOmFuYWx5dGljYWwtZW5naW5l"))
        return "Bearer \(try #require(login["token"] as? String))"
    }

    @Test func logInWithBasicCredentialsAnswersATokenAndTheUser() throws {
        let login = answer("POST", "api/users/login", authorization: "Basic YWRhOmFuYWx5dGljYWwtZW5naW5l")
        let user = try #require(try json(login)["user"] as? [String: Any])
        #expect(login.status == 200 && user["id"] as? String == "5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01")
    }

    @Test func aWrongPasswordIsRefusedWithAReason() throws {
        let login = answer("POST", "api/users/login", authorization: "Basic YWRhOnNlY3JldA==")
        #expect(try login.status == 401 && json(login)["reason"] as? String == "wrong username or password")
    }

    @Test func listsNeedABearerToken() throws {
        let list = answer("GET", "api/employees")
        #expect(try list.status == 401 && json(list)["error"] as? Bool == true)
    }

    @Test func anUnknownTokenIsRefused() {
        #expect(answer("GET", "api/employees", authorization: "Bearer forged").status == 401)
    }

    @Test func listsAreServedAsInTheDataFile() throws {
        let token = try bearer()
        let file = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: ExampleFiles.demoData)) as? [String: Any])
        for name in ["announcements", "employees", "events", "products", "purchases"] {
            let served = try JSONSerialization.jsonObject(with: answer("GET", "api/\(name)", authorization: token).body)
            #expect((served as? NSArray) == (file[name] as? NSArray), "api/\(name)")
        }
    }

    @Test func aUserIsServedWithoutTheirPassword() throws {
        let user = try json(answer("GET", "api/users/5F0C6F64-3B8E-4C1A-9D7E-2A1B4C6D8E01", authorization: bearer()))
        #expect(user["name"] as? String == "Ada Lovelace" && user["password"] == nil)
    }

    @Test func anUnknownUserIsNotFound() throws {
        #expect(answer("GET", "api/users/\(UUID())", authorization: try bearer()).status == 404)
    }

    @Test func aValidOrderIsAcceptedAndListed() throws {
        let token = try bearer()
        let order = #"{"items":[{"productID":1,"quantity":3}],"orderedAt":"2026-11-30T09:00:00Z"}"#
        let placed = answer("POST", "api/purchases", authorization: token, body: order)
        #expect(try placed.status == 201 && json(placed)["id"] as? String == "PO-1003")
        #expect(try json(placed)["total"] as? Double == 149.7)
        let purchases = try JSONSerialization.jsonObject(
            with: answer("GET", "api/purchases", authorization: token).body)
        #expect((purchases as? [Any])?.count == 3)
    }

    @Test(arguments: [
        (#"{"items":[],"orderedAt":"2026-11-30T09:00:00Z"}"#, 422, "a purchase order needs at least one item"),
        (#"{"items":[{"productID":99,"quantity":1}],"orderedAt":"2026-11-30T09:00:00Z"}"#, 422, "unknown product 99"),
        (
            #"{"items":[{"productID":1,"quantity":0}],"orderedAt":"2026-11-30T09:00:00Z"}"#, 422,
            "the quantity of product 1 must be between 1 and 999"
        ),
        (
            #"{"items":[{"productID":1,"quantity":1}],"orderedAt":"yesterday"}"#, 422,
            #"orderedAt is not an ISO-8601 date: "yesterday""#
        ),
        (
            #"{"items":[{"productID":3,"quantity":16}],"orderedAt":"2026-11-30T09:00:00Z"}"#, 422,
            "the order's total 10392.00 is above the limit of 10000.00"
        ),
    ])
    func anInvalidOrderIsRefusedWithAReason(order: String, status: Int, reason: String) throws {
        let refused = answer("POST", "api/purchases", authorization: try bearer(), body: order)
        #expect(try refused.status == status && json(refused)["reason"] as? String == reason)
    }

    @Test func notificationsAreAnEventStreamOfOneEventPerPaceAfterARetryField() throws {
        let stream = answer("GET", "api/notifications", authorization: try bearer())
        #expect(stream.status == 200 && stream.contentType == "text/event-stream")
        #expect(String(decoding: stream.body, as: UTF8.self) == "retry: 200\n\n")
        #expect(stream.interval == .milliseconds(150))
        let events = stream.laterParts.map { String(decoding: $0, as: UTF8.self) }
        try #require(events.count == 3)
        #expect(
            events[0] == """
                id: 1
                event: purchase
                data: {"body":"Your purchase order PO-1002 left the warehouse.","title":"PO-1002 shipped"}


                """)
        #expect(events[1].hasPrefix("id: 2\nevent: announcement\ndata: {") && events[1].hasSuffix("}\n\n"))
        #expect(events[2].hasPrefix("id: 3\nevent: reminder\ndata: {") && events[2].hasSuffix("}\n\n"))
    }

    @Test func aReconnectionGetsTheNotificationsAfterItsLastEventIDAndThen204() throws {
        let token = try bearer()
        func reconnect(after id: String) -> DemoBackend.Answer {
            var request = URLRequest(url: Fixtures.server.appending(path: "api/notifications"))
            request.setValue(token, forHTTPHeaderField: "Authorization")
            request.setValue(id, forHTTPHeaderField: "Last-Event-ID")
            return backend.answer(request, body: nil)
        }
        let rest = reconnect(after: "1")
        #expect(rest.status == 200 && rest.laterParts.count == 2)
        #expect(rest.laterParts.first.map { String(decoding: $0, as: UTF8.self).hasPrefix("id: 2\n") } == true)
        let end = reconnect(after: "3")
        #expect(end.status == 204 && end.body.isEmpty && end.laterParts.isEmpty)
        #expect(reconnect(after: "unknown").laterParts.count == 3)
    }

    @Test func notificationsNeedABearerToken() throws {
        let refused = answer("GET", "api/notifications")
        #expect(try refused.status == 401 && json(refused)["error"] as? Bool == true && refused.laterParts.isEmpty)
    }

    @Test func anUnknownRouteIsNotFound() throws {
        #expect(answer("GET", "api/payroll", authorization: try bearer()).status == 404)
    }
}
