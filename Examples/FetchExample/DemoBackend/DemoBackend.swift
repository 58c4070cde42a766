import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo company API in process: the same routes, data and rules as `demo_server.py`, answering `URLRequest`s
/// that ``DemoURLProtocol`` hands it, so that the example runs through a real `Session` and `URLSession` with no
/// server.
///
/// Both read `demo_data.json`; lists are served as they are in that file. `POST api/users/login` takes HTTP Basic
/// credentials and answers a token; every other route needs `Authorization: Bearer <token>` and answers 401 without
/// it. Errors answer `{"error": true, "reason": "…"}`.
///
/// `GET api/notifications` is a stream of Server-Sent Events: `retry:` at once, then one event (`id:`, `event:` and
/// JSON `data:`) every `intervalMs` of the data file, then the end of the stream. A reconnection with
/// `Last-Event-ID` gets the events after that one, or `204 No Content` when there are none left, which ends an
/// `events` sequence cleanly.
///
/// `@unchecked Sendable`: the mutable state, `state`, is only touched while holding `lock`; the rest is immutable.
final class DemoBackend: @unchecked Sendable {
    /// A status and a body: JSON, or the start of a stream whose other parts follow one by one.
    struct Answer: Sendable {
        let status: Int
        let body: Data
        /// The `Content-Type`: JSON but for the notifications' `text/event-stream`.
        var contentType = "application/json"
        /// A stream's parts after `body`, each sent `interval` after the one before; empty for a whole answer.
        var laterParts: [Data] = []
        /// The wait before each of `laterParts`.
        var interval: Duration = .zero
    }

    private struct Account: Decodable {
        let id: UUID
        let username: String
        let password: String
    }

    private struct Price: Decodable {
        let id: Int
        let price: Money
    }

    private struct Rules: Decodable {
        let maxPOExpense: Money
        let firstPurchaseNumber: Int
    }

    /// The pacing of the notifications stream; the events themselves are written from the raw JSON.
    private struct Notifications: Decodable {
        struct Event: Decodable {
            let id: String
            let event: String
        }

        let intervalMs: Int
        let retryMs: Int
        let events: [Event]
    }

    /// One notification as it is written on the stream.
    private struct WrittenEvent {
        let id: String
        let text: Data
    }

    /// The typed parts of the data that the rules need; lists are served from the raw JSON.
    private struct DemoData: Decodable {
        let users: [Account]
        let products: [Price]
        let rules: Rules
        let notifications: Notifications
    }

    /// A purchase order as the client sends it; every field optional, so that a missing one gets a clear reason.
    private struct Order: Decodable {
        struct Item: Decodable {
            let productID: Int?
            let quantity: Int?
        }

        let items: [Item]?
        let orderedAt: String?
        let deliverBy: String?
    }

    private struct State {
        var lists: [String: [Data]]
        var tokens: [String: UUID] = [:]
        var nextPurchaseNumber: Int
    }

    private static let listNames = ["announcements", "employees", "events", "products", "purchases"]

    private let accounts: [Account]
    private let publicUsers: [UUID: Data]
    private let prices: [Int: Money]
    private let rules: Rules
    private let notifications: [WrittenEvent]
    private let notificationInterval: Duration
    private let retryMilliseconds: Int
    private let lock = NSLock()
    private var state: State

    /// Loads the demo data.
    ///
    /// - Parameter url: `demo_data.json`.
    /// - Throws: ``DemoDataError`` when the file cannot be read or is not demo data.
    convenience init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DemoDataError(file: url, reason: "cannot be read: \(error.localizedDescription)")
        }
        try self.init(data: data, source: url)
    }

    /// Reads the demo data from the contents of `demo_data.json`.
    ///
    /// - Throws: ``DemoDataError`` when `data` is not demo data.
    init(data: Data, source: URL) throws {
        let typed: DemoData
        let raw: [String: Any]
        do {
            typed = try JSONDecoder().decode(DemoData.self, from: data)
            raw = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        } catch {
            throw DemoDataError(file: source, reason: "is not demo data: \(error)")
        }
        var lists: [String: [Data]] = [:]
        for name in Self.listNames {
            guard let items = raw[name] as? [Any] else {
                throw DemoDataError(file: source, reason: "has no list \"\(name)\"")
            }
            lists[name] = try items.map { try JSONSerialization.data(withJSONObject: $0, options: .sortedKeys) }
        }
        var publicUsers: [UUID: Data] = [:]
        for case var user as [String: Any] in raw["users"] as? [Any] ?? [] {
            guard let id = (user["id"] as? String).flatMap(UUID.init(uuidString:)) else {
                throw DemoDataError(file: source, reason: "has a user without a UUID id")
            }
            user["password"] = nil
            publicUsers[id] = try JSONSerialization.data(withJSONObject: user, options: .sortedKeys)
        }
        let rawEvents = (raw["notifications"] as? [String: Any])?["events"] as? [Any] ?? []
        guard rawEvents.count == typed.notifications.events.count else {
            throw DemoDataError(file: source, reason: "has notifications that are not all objects")
        }
        self.notifications = try zip(typed.notifications.events, rawEvents).map { event, raw in
            guard let payload = (raw as? [String: Any])?["data"] else {
                throw DemoDataError(file: source, reason: "has notification \(event.id) without data")
            }
            let json = try JSONSerialization.data(
                withJSONObject: payload, options: [.sortedKeys, .withoutEscapingSlashes])
            let text = "id: \(event.id)\nevent: \(event.event)\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
            return WrittenEvent(id: event.id, text: Data(text.utf8))
        }
        self.notificationInterval = .milliseconds(typed.notifications.intervalMs)
        self.retryMilliseconds = typed.notifications.retryMs
        self.accounts = typed.users
        self.publicUsers = publicUsers
        self.prices = Dictionary(typed.products.map { ($0.id, $0.price) }) { first, _ in first }
        self.rules = typed.rules
        self.state = State(lists: lists, nextPurchaseNumber: typed.rules.firstPurchaseNumber)
    }

    /// The answer to a request; its URL's path is read from the root, such as `/api/employees`.
    func answer(_ request: URLRequest, body: Data?) -> Answer {
        let method = request.httpMethod ?? "GET"
        let path = String((request.url?.path ?? "").drop { $0 == "/" })
        do {
            return try route(method: method, path: path, body: body) { request.value(forHTTPHeaderField: $0) }
        } catch let error as Refusal {
            return json(error.status, ["error": true, "reason": error.reason])
        } catch {
            return json(500, ["error": true, "reason": "the demo backend failed: \(error)"])
        }
    }

    private func route(method: String, path: String, body: Data?, header: (String) -> String?) throws -> Answer {
        if path == "api/users/login" {
            try require(method, "POST", path)
            return json(200, try logIn(authorization: header("Authorization")))
        }
        let userID = try authorizedUser(authorization: header("Authorization"))
        if path == "api/notifications" {
            try require(method, "GET", path)
            return notifications(after: header("Last-Event-ID"))
        }
        if path.hasPrefix("api/"), Self.listNames.contains(String(path.dropFirst(4))) {
            if path == "api/purchases", method == "POST" {
                return try placeOrder(by: userID, body: body ?? Data())
            }
            try require(method, "GET", path)
            let items = withLock { $0.lists[String(path.dropFirst(4))] ?? [] }
            return Answer(
                status: 200, body: Data("[".utf8) + Data(items.joined(separator: Data(",".utf8))) + Data("]".utf8))
        }
        if path.hasPrefix("api/users/"), !path.dropFirst(10).contains("/") {
            try require(method, "GET", path)
            let key = String(path.dropFirst(10))
            guard let id = UUID(uuidString: key), let user = publicUsers[id] else {
                throw Refusal(404, "no user with id \(key)")
            }
            return Answer(status: 200, body: user)
        }
        throw Refusal(404, "no route for \(method) /\(path)")
    }

    // MARK: - The live desk

    /// Why the live desk (``LiveDeskServer``) should turn down a handshake with this `Authorization` field, the same
    /// reason as the API's routes give, or `nil` when it carries the token of a login.
    func reasonToRefuse(authorization: String?) -> String? {
        do {
            _ = try authorizedUser(authorization: authorization)
            return nil
        } catch let refusal as Refusal {
            return refusal.reason
        } catch {
            return "the demo backend failed: \(error)"
        }
    }

    /// What the live desk sends a client that connects: one JSON update per event of the demo data, such as
    /// `{"kind":"event","text":"All-hands meeting, Main hall"}`.
    func deskUpdates() -> [String] {
        let events = withLock { $0.lists["events"] ?? [] }
        return events.compactMap { item in
            do {
                guard let event = try JSONSerialization.jsonObject(with: item) as? [String: Any],
                    let title = event["title"] as? String
                else {
                    return nil
                }
                let text = [title, event["location"] as? String].compactMap { $0 }.joined(separator: ", ")
                let update = try JSONSerialization.data(
                    withJSONObject: ["kind": "event", "text": text], options: .sortedKeys)
                return String(decoding: update, as: UTF8.self)
            } catch {
                return nil  // the lists were JSON when they were loaded: nothing to skip in practice
            }
        }
    }

    private func require(_ method: String, _ expected: String, _ path: String) throws {
        guard method == expected else {
            throw Refusal(405, "/\(path) answers \(expected), not \(method)")
        }
    }

    private func logIn(authorization: String?) throws -> [String: Any] {
        let (scheme, credentials) = split(authorization)
        guard scheme == "basic", !credentials.isEmpty else {
            throw Refusal(
                401, "log in with HTTP Basic authentication: Authorization: Basic base64(username:password)")
        }
        guard let decoded = Data(base64Encoded: credentials), let text = String(data: decoded, encoding: .utf8) else {
            throw Refusal(401, "the Basic credentials are not base64 of UTF-8 username:password")
        }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let account = accounts.first(where: { $0.username == parts[0] }),
            account.password == parts[1]
        else {
            throw Refusal(401, "wrong username or password")
        }
        let token = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        withLock { $0.tokens[token] = account.id }
        return ["token": token, "user": ["id": account.id.uuidString.lowercased()]]
    }

    private func authorizedUser(authorization: String?) throws -> UUID {
        let (scheme, token) = split(authorization)
        guard scheme == "bearer", !token.isEmpty else {
            throw Refusal(401, "this call needs Authorization: Bearer <token>; log in first (POST api/users/login)")
        }
        guard let userID = withLock({ $0.tokens[token] }) else {
            throw Refusal(401, "unknown or expired token; log in again")
        }
        return userID
    }

    /// The notifications after the one with id `lastEventID` (all of them when it is `nil` or unknown) as a stream,
    /// or `204 No Content` when none are left.
    private func notifications(after lastEventID: String?) -> Answer {
        let start = lastEventID.flatMap { id in notifications.firstIndex { $0.id == id }.map { $0 + 1 } } ?? 0
        guard start < notifications.count else {
            return Answer(status: 204, body: Data())
        }
        return Answer(
            status: 200,
            body: Data("retry: \(retryMilliseconds)\n\n".utf8),
            contentType: "text/event-stream",
            laterParts: notifications[start...].map(\.text),
            interval: notificationInterval
        )
    }

    private func placeOrder(by userID: UUID, body: Data) throws -> Answer {
        let order: Order
        do {
            order = try JSONDecoder().decode(Order.self, from: body)
        } catch {
            throw Refusal(400, "the purchase order is not a JSON object of the expected shape: \(error)")
        }
        guard let items = order.items, !items.isEmpty else {
            throw Refusal(422, "a purchase order needs at least one item")
        }
        var total = Money(cents: 0)
        for item in items {
            guard let productID = item.productID, let price = prices[productID] else {
                throw Refusal(422, "unknown product \(item.productID.map(String.init) ?? "None")")
            }
            guard let quantity = item.quantity, (1...999).contains(quantity) else {
                throw Refusal(422, "the quantity of product \(productID) must be between 1 and 999")
            }
            total = total + price * quantity
        }
        let orderedAt = try Self.date(order.orderedAt, field: "orderedAt")
        if let deliverBy = order.deliverBy, try Self.date(deliverBy, field: "deliverBy") < orderedAt {
            throw Refusal(422, "deliverBy is before orderedAt")
        }
        guard total <= rules.maxPOExpense else {
            throw Refusal(422, "the order's total \(total) is above the limit of \(rules.maxPOExpense)")
        }
        let purchase = try withLock { state -> Data in
            let purchase: [String: Any] = [
                "id": "PO-\(state.nextPurchaseNumber)",
                "requestedBy": userID.uuidString.lowercased(),
                "items": items.map { ["productID": $0.productID ?? 0, "quantity": $0.quantity ?? 0] },
                "total": Double(total.cents) / 100,
                "orderedAt": order.orderedAt ?? "",
                "deliverBy": order.deliverBy ?? NSNull(),
                "status": "approved",
            ]
            let data = try JSONSerialization.data(withJSONObject: purchase, options: .sortedKeys)
            state.nextPurchaseNumber += 1
            state.lists["purchases", default: []].append(data)
            return data
        }
        return Answer(status: 201, body: purchase)
    }

    private func json(_ status: Int, _ value: Any) -> Answer {
        do {
            return Answer(status: status, body: try JSONSerialization.data(withJSONObject: value, options: .sortedKeys))
        } catch {
            return Answer(
                status: 500, body: Data(#"{"error":true,"reason":"the demo backend could not encode its answer"}"#.utf8)
            )
        }
    }

    private func split(_ authorization: String?) -> (scheme: String, value: String) {
        let parts = (authorization ?? "").split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else {
            return (parts.first.map { $0.lowercased() } ?? "", "")
        }
        return (parts[0].lowercased(), String(parts[1]))
    }

    private static func date(_ text: String?, field: String) throws -> Date {
        guard let text else {
            throw Refusal(422, "\(field) must be an ISO-8601 date such as 2026-12-01T09:00:00Z")
        }
        let whole = Date.ISO8601FormatStyle()
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        guard let date = (try? whole.parse(text)) ?? (try? fractional.parse(text)) else {
            throw Refusal(422, "\(field) is not an ISO-8601 date: \(text.debugDescription)")
        }
        return date
    }

    private func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

/// A request the demo API refuses: the status and the reason it answers.
private struct Refusal: Error {
    let status: Int
    let reason: String

    init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
}

/// `demo_data.json` could not be read.
struct DemoDataError: Error, CustomStringConvertible {
    let file: URL
    let reason: String

    var description: String {
        "the demo data \(file.path) \(reason)"
    }
}
