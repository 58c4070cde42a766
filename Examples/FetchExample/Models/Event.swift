import Fetch
import Foundation

/// A company event of `GET api/events`.
struct Event: Decodable, Parsable, Equatable {
    let id: Int
    let title: String
    let location: String
    let startsAt: Date
    let endsAt: Date
}
