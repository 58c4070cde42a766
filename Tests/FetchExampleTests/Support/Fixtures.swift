import Fetch
import FetchTesting
import Foundation

@testable import FetchExample

/// Values the example's tests share.
enum Fixtures {
    static let server = URL(string: "http://api.example.test/") ?? URL(fileURLWithPath: "/invalid-test-url")
    static let token = "t0k3n"
    static let userID = UUID(uuidString: "5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01") ?? UUID()
    static let loginJSON = #"{"token": "t0k3n", "user": {"id": "5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01"}}"#
    static let standingDesk = Product(id: 3, name: "Standing desk", price: Money(cents: 64_950))
    static let laptopStand = Product(id: 1, name: "Laptop stand", price: Money(cents: 4990))
    /// 2026-11-30T09:00:00Z.
    static let orderedAt = Date(timeIntervalSince1970: 1_796_029_200)
    /// 2026-12-14T09:00:00Z.
    static let deliverBy = orderedAt.addingTimeInterval(14 * 24 * 60 * 60)

    /// An API whose maxPOExpense is 5000.00, talking to `performer`, that waits before a retry in virtual time
    /// (the whole call completes before it returns, over the doubles).
    static func api(
        _ performer: any RequestPerforming,
        onEvent: (@Sendable (FetchEvent) -> Void)? = nil
    ) -> API {
        API(
            baseURL: server, performer: performer, maxPOExpense: Money(cents: 500_000), scheduler: TestScheduler(),
            onEvent: onEvent)
    }

    static func order(_ product: Product, quantity: Int) -> PurchaseOrder {
        PurchaseOrder(lines: [.init(product: product, quantity: quantity)], orderedAt: orderedAt, deliverBy: deliverBy)
    }
}

extension Duration {
    /// This duration in seconds, for the waits of `Captured` and `SpyPerformer`, which take a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
