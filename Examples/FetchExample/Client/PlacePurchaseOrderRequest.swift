import Fetch
import Foundation

/// `POST api/purchases` with a ``PurchaseOrder`` as JSON, dates in ISO 8601, and `Authorization: Bearer <token>`.
struct PlacePurchaseOrderRequest: Request {
    let url: URL
    let body: Data?
    let headers: [String: String]?

    var method: HTTPMethod { .post }

    /// The encoder of purchase orders: ISO-8601 dates, keys sorted so that the body is the same on every run.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// - Throws: `EncodingError` when the order cannot be encoded.
    init(baseURL: URL, order: PurchaseOrder, token: String?) throws {
        self.url = baseURL.appending(path: "api/purchases")
        self.body = try Self.encoder.encode(order)
        var headers = ["Content-Type": "application/json"]
        headers["Authorization"] = token.map { "Bearer \($0)" }
        self.headers = headers
    }
}
