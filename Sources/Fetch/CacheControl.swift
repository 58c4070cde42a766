import Foundation

/// The `Cache-Control` directives that a private client cache acts on (RFC 9111 §5.2).
package struct CacheControl: Sendable {
    /// `max-age=N`: the response is fresh for N seconds.
    package var maxAge: TimeInterval?
    /// `no-store`: the response must not be stored.
    package var noStore = false
    /// `no-cache`: the response may be stored, but must be revalidated before each use.
    package var noCache = false
    /// `private`: only a private cache may store the response.
    package var isPrivate = false
    /// `must-revalidate`: once stale, the response must not be used without revalidation.
    package var mustRevalidate = false

    /// Reads the directives of a `Cache-Control` value; unknown directives are ignored, as RFC 9111 requires.
    package init(_ value: String?) {
        guard let value else {
            return
        }
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            guard let rawName = parts.first else {
                continue
            }
            let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
            switch name {
            case "max-age":
                // An invalid max-age makes the response stale (RFC 9111 §4.2.1), not fresh forever.
                maxAge = argument.map { TimeInterval($0.trimmingCharacters(in: ["\""])) ?? 0 } ?? 0
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "must-revalidate": mustRevalidate = true
            default: continue
            }
        }
    }
}

/// HTTP dates (RFC 9110 §5.6.7) in the preferred IMF-fixdate form: `Sun, 06 Nov 1994 08:49:37 GMT`.
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `text` names, or `nil` when it is not an IMF-fixdate (such as `Expires: 0`, which means "already
    /// expired").
    package static func date(from text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int(fields[1]), let year = Int(fields[3]),
            let month = months.firstIndex(of: fields[2].lowercased())
        else {
            return nil
        }
        let time = fields[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else {
            return nil
        }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = time[0]
        components.minute = time[1]
        components.second = time[2]
        return calendar.date(from: components)
    }

    /// `date` as an IMF-fixdate.
    package static func string(from date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let weekday = weekdays[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12].capitalized
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(weekday), \(two(parts.day)) \(month) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}
