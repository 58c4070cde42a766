import Foundation

/// A purchase order to place with `POST api/purchases`.
///
/// It keeps each product with its price so that the client can work out the ``total`` and refuse an order above
/// the configured limit before sending anything; the JSON sent names only product IDs and quantities, with
/// ISO-8601 dates:
///
/// ```json
/// {"deliverBy":"2026-12-07T09:00:00Z","items":[{"productID":1,"quantity":3}],"orderedAt":"2026-11-30T09:00:00Z"}
/// ```
struct PurchaseOrder: Sendable, Equatable {
    /// One line of the order.
    struct Line: Sendable, Equatable {
        let product: Product
        let quantity: Int
    }

    let lines: [Line]
    let orderedAt: Date
    let deliverBy: Date?

    /// What the order costs: the sum of each line's price times its quantity.
    var total: Money {
        lines.reduce(Money(cents: 0)) { $0 + $1.product.price * $1.quantity }
    }
}

// MARK: - Encodable

extension PurchaseOrder: Encodable {
    private enum CodingKeys: String, CodingKey {
        case items, orderedAt, deliverBy
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let items = lines.map { Purchase.Item(productID: $0.product.id, quantity: $0.quantity) }
        try container.encode(items, forKey: .items)
        try container.encode(orderedAt, forKey: .orderedAt)
        try container.encodeIfPresent(deliverBy, forKey: .deliverBy)
    }
}
