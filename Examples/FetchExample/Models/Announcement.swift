import Fetch
import Foundation

/// A news item of `GET api/announcements`.
struct Announcement: Decodable, Parsable, Equatable {
    let id: Int
    let title: String
    let body: String
    let publishedAt: Date
}
