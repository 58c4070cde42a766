import Foundation

/// An amount of money, kept in whole cents so that totals add up exactly.
///
/// In JSON it is a plain number with up to two decimals (`49.9`, `1250`), as the demo API sends prices.
struct Money: Sendable, Hashable, Comparable {
    /// The amount in cents.
    let cents: Int

    init(cents: Int) {
        self.cents = cents
    }

    /// The amount `units` (euros, dollars…) rounded to the cent, or `nil` when it is not a finite amount.
    init?(units: Double) {
        let scaled = (units * 100).rounded()
        guard scaled.isFinite, abs(scaled) < 1e15 else {
            return nil
        }
        self.cents = Int(scaled)
    }

    /// Reads an amount written as in the data and the flags: `5000`, `49.90`.
    init?(_ text: String) {
        guard let units = Double(text) else {
            return nil
        }
        self.init(units: units)
    }

    static func * (money: Money, factor: Int) -> Money {
        Money(cents: money.cents * factor)
    }

    static func + (lhs: Money, rhs: Money) -> Money {
        Money(cents: lhs.cents + rhs.cents)
    }

    static func < (lhs: Money, rhs: Money) -> Bool {
        lhs.cents < rhs.cents
    }
}

// MARK: - Codable

extension Money: Codable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let units = try container.decode(Double.self)
        guard let money = Money(units: units) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(units) is not an amount")
        }
        self = money
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Double(cents) / 100)
    }
}

// MARK: - CustomStringConvertible

extension Money: CustomStringConvertible {
    /// `1250.00`, `49.90`.
    var description: String {
        let sign = cents < 0 ? "-" : ""
        let whole = abs(cents) / 100
        let fraction = abs(cents) % 100
        return "\(sign)\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
