import Fetch
import Foundation

/// A purchase as the server keeps it: from `GET api/purchases`, and the answer to `POST api/purchases`.
struct Purchase: Decodable, Parsable, Equatable {
    /// One product and how many of it.
    struct Item: Codable, Equatable {
        let productID: Int
        let quantity: Int
    }

    /// `PO-1001`.
    let id: String
    let requestedBy: UUID
    let items: [Item]
    let total: Money
    let orderedAt: Date
    let deliverBy: Date?
    /// `approved`, `delivered`…
    let status: String
}
