import Fetch
import Foundation

/// The whole flow `fetch-example` runs, the same against the embedded backend and a real server: log in and load
/// every list with callbacks through a ``DashboardViewModel``, then, with `async`/`await`, read the user, place a
/// purchase order and have a dearer one refused, read the live notifications (Server-Sent Events) as they arrive,
/// talk on the live desk (a WebSocket) when it is served, try a wrong password, log out and see the next call
/// refused.
struct DemoFlow {
    let api: API
    let configuration: Configuration
    /// The base URL of the live desk's server (``LiveDeskServer``), or `nil` when none is served (with `--server`).
    let liveDeskURL: URL?
    let callbackQueue: OperationQueue
    let transcript: Transcript

    func run() async {
        transcript.note("Callbacks: a DashboardViewModel tells its delegate, on the callback queue")
        guard let (signedIn, dashboard) = await loadDashboard() else {
            return
        }
        transcript.note("async/await")
        let userID = signedIn.userID
        await transcript.step("user \(userID.uuidString.lowercased())") {
            let user = try await api.user(id: userID)
            return "\(user.name), \(user.title)"
        }
        // A failure to load the products was reported above; then there is nothing to order.
        if case .success(let products) = dashboard.products {
            await placeOrders(products: products)
        }
        await readLiveNotifications()
        await talkOnTheLiveDesk()
        await transcript.refusal("log in with a wrong password", expecting: .unauthorized) {
            try await api.logIn(username: configuration.username, password: configuration.password + "-wrong")
        }
        api.logOut()
        await transcript.refusal("log out; then GET api/employees", expecting: .unauthorized) {
            try await api.employees()
        }
    }

    /// The callback half: the view model logs in and loads the lists; its delegate, a ``DashboardWaiter``, hears.
    private func loadDashboard() async -> (SignedIn, Dashboard)? {
        let viewModel = DashboardViewModel(api: api)
        let waiter = DashboardWaiter(callbackQueue: callbackQueue)
        viewModel.delegate = waiter
        viewModel.logInAndLoad(username: configuration.username, password: configuration.password)
        switch await waiter.outcome() {
        case .loginFailed(let error):
            transcript.failed("log in as \(configuration.username): \(error)")
            transcript.note("Stopped: every other call needs a login.")
            return nil
        case .loaded(let signedIn, let dashboard):
            transcript.passed("log in as \(configuration.username): user \(signedIn.userID.uuidString.lowercased())")
            report("announcements", dashboard.announcements) {
                "latest “\($0.max { $0.publishedAt < $1.publishedAt }?.title ?? "")”"
            }
            report("employees", dashboard.employees) { $0.map(\.name).joined(separator: ", ") }
            report("events", dashboard.events) { "next “\($0.min { $0.startsAt < $1.startsAt }?.title ?? "")”" }
            report("products", dashboard.products) { $0.map { "\($0.name) \($0.price)" }.joined(separator: ", ") }
            report("purchases", dashboard.purchases) { $0.map { "\($0.id) \($0.total)" }.joined(separator: ", ") }
            let calls = waiter.delegateCalls
            if calls.offTheCallbackQueue == 0 {
                transcript.passed("\(calls.total) delegate calls, all on the callback queue")
            } else {
                transcript.failed(
                    "\(calls.offTheCallbackQueue) of \(calls.total) delegate calls came off the callback queue")
            }
            return (signedIn, dashboard)
        }
    }

    private func report<Item>(_ name: String, _ list: Result<[Item], any Error>?, summary: ([Item]) -> String) {
        switch list {
        case .success(let items): transcript.passed("\(items.count) \(name): \(summary(items))")
        case .failure(let error): transcript.failed("\(name): \(error)")
        case nil: transcript.failed("\(name): never arrived")
        }
    }

    /// Places an order within `maxPOExpense` and one above it, which the client refuses without sending it.
    private func placeOrders(products: [Product]) async {
        let limit = api.maxPOExpense
        guard let cheapest = products.min(by: { $0.price < $1.price }),
            let dearest = products.max(by: { $0.price < $1.price }), cheapest.price.cents > 0
        else {
            transcript.failed("place purchase orders: there are no products with prices to order")
            return
        }
        let now = Date()
        let deliverBy = now.addingTimeInterval(14 * 24 * 60 * 60)
        let affordable = max(1, min(3, limit.cents / cheapest.price.cents))
        let order = PurchaseOrder(
            lines: [.init(product: cheapest, quantity: affordable)], orderedAt: now, deliverBy: deliverBy)
        await transcript.step("place an order of \(describe(order))") {
            "accepted as \(try await api.place(order).id)"
        }
        let tooMany = min(999, limit.cents / max(dearest.price.cents, 1) + 1)
        let dearOrder = PurchaseOrder(
            lines: [.init(product: dearest, quantity: tooMany)], orderedAt: now, deliverBy: deliverBy)
        await transcript.refusal("place an order of \(describe(dearOrder))", expecting: .aboveExpenseLimit) {
            try await api.place(dearOrder)
        }
        await transcript.step("purchases") {
            let purchases = try await api.purchases()
            return "now \(purchases.count), the last \(purchases.last?.id ?? "none")"
        }
    }

    /// Reads `GET api/notifications`, a Server-Sent Events stream, until the server ends it, writing each
    /// notification as it arrives.
    private func readLiveNotifications() async {
        var received: [LiveNotification] = []
        do {
            for try await notification in api.notifications() {
                received.append(notification)
                transcript.passed(
                    "live notification #\(notification.id ?? "-") (\(notification.kind)): \(notification.title)")
            }
            guard let last = received.last else {
                transcript.failed("live notifications (Server-Sent Events): the stream ended before the first one")
                return
            }
            // With the default reconnect policy, the sequence ends without an error only on a 204.
            transcript.passed(
                "live notifications (Server-Sent Events): \(received.count), each as it arrived; then 204 to the"
                    + " reconnection with Last-Event-ID \(last.id ?? "-")")
        } catch {
            transcript.failed("live notifications (Server-Sent Events), after \(received.count): \(error)")
        }
    }

    /// The post the flow sends on the live desk, which the server echoes.
    static let deskPost = DeskUpdate(kind: "post", text: "Ada is in the office today")

    /// Opens the live desk (a WebSocket, through the same authenticated middlewares), posts one message, and writes
    /// each message the server sends until it closes the channel (a failure closes it from this side). When the
    /// desk drops the connection, it writes the reconnection, and posts again on the new connection.
    ///
    /// A desk that cannot be opened (none served, or a transport that does not open WebSockets) is one line that
    /// says why, not a failed step: the rest of the demo does not need it.
    func talkOnTheLiveDesk() async {
        guard let liveDeskURL else {
            transcript.note(
                "  – live desk (WebSocket): served only beside the embedded backend; demo_server.py has no WebSocket")
            return
        }
        let desk: WebSocket
        let transcript = transcript
        let reopenings = Counter()
        do {
            desk = try await api.liveDesk(
                at: liveDeskURL,
                onEvent: { event in
                    guard event.name == .reconnecting else {
                        return
                    }
                    transcript.note(
                        "  – live desk dropped; reconnecting in \(event.delay ?? 0) s (attempt \(event.attempt ?? 1))")
                },
                onReconnect: { desk in
                    let connection = reopenings.increment() + 1
                    try await desk.send(json: Self.deskPost)
                    transcript.passed("live desk reopened (connection \(connection)); posted again")
                })
        } catch {
            transcript.note("  – live desk (WebSocket) not opened, so skipped: \(error)")
            return
        }
        var updates = 0
        do {
            try await desk.send(json: Self.deskPost)
            for try await message in desk {
                let update = try message.decode(DeskUpdate.self)
                if update.kind == "echo" {
                    transcript.passed("live desk echo: \(update.text)")
                } else {
                    updates += 1
                    transcript.passed("live desk update (\(update.kind)): \(update.text)")
                }
            }
            // The sequence ended cleanly: the server closed with 1000 or 1001, and Fetch answered its close frame.
            let reconnections = reopenings.value
            transcript.passed(
                "live desk (WebSocket): \(updates) updates and the echo, across \(reconnections) reconnection"
                    + (reconnections == 1 ? "" : "s") + "; then the server closed with"
                    + " \(desk.closeCode.map { String($0.rawValue) } ?? "no code"): \(desk.closeReason ?? "")")
        } catch {
            desk.close()
            let received = updates == 1 ? "1 update" : "\(updates) updates"
            transcript.failed("live desk (WebSocket), after \(received): \(error)")
        }
    }

    private func describe(_ order: PurchaseOrder) -> String {
        let lines = order.lines.map { "\($0.quantity) × \($0.product.name)" }.joined(separator: " and ")
        return "\(lines) (\(order.total))"
    }
}

/// A count that the desk's reconnect hook and the flow share.
///
/// `@unchecked Sendable`: `count` is only touched while holding `lock`.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The count.
    var value: Int {
        lock.withLock { count }
    }

    /// Adds one, and returns the new count.
    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
