import Fetch

/// Something that can be ordered, from `GET api/products`.
struct Product: Decodable, Parsable, Equatable {
    let id: Int
    let name: String
    let price: Money
}
