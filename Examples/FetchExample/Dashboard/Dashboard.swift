/// What a dashboard screen shows: each list of the API, or why it could not be loaded; `nil` while it loads.
struct Dashboard: Sendable {
    var announcements: Result<[Announcement], any Error>?
    var employees: Result<[Employee], any Error>?
    var events: Result<[Event], any Error>?
    var products: Result<[Product], any Error>?
    var purchases: Result<[Purchase], any Error>?

    /// Whether every list has arrived or failed.
    var isComplete: Bool {
        announcements != nil && employees != nil && events != nil && products != nil && purchases != nil
    }
}
