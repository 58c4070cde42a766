import Foundation

/// The refusal of a purchase order whose total is above the configured `maxPOExpense`; nothing was sent.
struct ExpenseLimitExceeded: Error, Equatable {
    let total: Money
    let limit: Money
}

// MARK: - CustomStringConvertible

extension ExpenseLimitExceeded: CustomStringConvertible {
    var description: String {
        "refused before sending: the order's total \(total) is above the maxPOExpense limit of \(limit)"
    }
}

// MARK: - LocalizedError

extension ExpenseLimitExceeded: LocalizedError {
    var errorDescription: String? { description }
}
