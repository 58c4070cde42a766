import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` that servers send, read quickly
/// (caches read one per response), and the obsolete RFC 850 and asctime forms that recipients must still accept.
///
/// Each field is checked against its range before any calendar arithmetic, which would otherwise turn `31 Feb` into
/// 3 March or year `0000` into 1 BC.
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `text` names, or `nil` when it is not an HTTP-date (such as `Expires: 0`, which means "already
    /// expired"), or names a day or time that does not exist.
    package static func date(from text: String) -> Date? {
        let fields = text.split(separator: " ")
        switch fields.count {
        case 6: return imfFixdate(fields)
        case 4: return rfc850Date(fields)
        case 5: return asctimeDate(fields)
        default: return nil
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ fields: [Substring]) -> Date? {
        guard fields[5] == "GMT", let day = number(fields[1], digits: 2...2),
            let year = number(fields[3], digits: 4...4)
        else {
            return nil
        }
        return date(year: year, month: fields[2], day: day, time: fields[4])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`, whose two-digit year is the one in the century that makes it at most 50 years
    /// in the future (RFC 9110 §5.6.7).
    private static func rfc850Date(_ fields: [Substring]) -> Date? {
        let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false)
        guard fields[3] == "GMT", parts.count == 3, let day = number(parts[0], digits: 2...2),
            let twoDigits = number(parts[2], digits: 2...2)
        else {
            return nil
        }
        let thisYear = calendar.component(.year, from: Date())
        var year = thisYear - thisYear % 100 + twoDigits
        if year > thisYear + 50 {
            year -= 100
        }
        return date(year: year, month: parts[1], day: day, time: fields[2])
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func asctimeDate(_ fields: [Substring]) -> Date? {
        guard let day = number(fields[2], digits: 1...2), let year = number(fields[4], digits: 4...4) else {
            return nil
        }
        return date(year: year, month: fields[1], day: day, time: fields[3])
    }

    /// The instant the fields name, when each is in its range: year 1...9999, a day of that month, `HH:MM:SS` with
    /// second 60 a leap second (RFC 5322 §3.3), read as the first second of the next minute (but not of year 10000).
    private static func date(year: Int, month monthName: Substring, day: Int, time: Substring) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).compactMap {
            number($0, digits: 2...2)
        }
        guard year >= 1, let month = months.firstIndex(of: monthName.lowercased()), (1...31).contains(day),
            clock.count == 3, clock[0] <= 23, clock[1] <= 59, clock[2] <= 60
        else {
            return nil
        }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = clock[0]
        components.minute = clock[1]
        components.second = clock[2]
        // The leap second 23:59:60 of 31 December 9999 would be year 10000, which no four-digit year names.
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date.addingTimeInterval(clock[2] == 60 ? -1 : 0)) == day,
            calendar.component(.year, from: date) <= 9999
        else {
            return nil
        }
        return date
    }

    /// `text` as a number, when it is a number of ASCII digits in `digits` (read by ``WireNumber/digits(_:maximum:)``).
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count) else {
            return nil
        }
        return WireNumber.digits(text.utf8)
    }

    /// `date` as an IMF-fixdate.
    package static func string(from date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let weekday = weekdays[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12].capitalized
        func padded(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(weekday), \(padded(parts.day, 2)) \(month) \(padded(parts.year, 4)) "
            + "\(padded(parts.hour, 2)):\(padded(parts.minute, 2)):\(padded(parts.second, 2)) GMT"
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}
