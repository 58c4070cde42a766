import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An error the demo API reported in its body, `{"error": true, "reason": "…"}`, with the status it came with.
struct APIError: Error, Equatable {
    /// The HTTP status code, for example 401.
    let status: Int
    /// What the server said.
    let reason: String
}

// MARK: - CustomStringConvertible

extension APIError: CustomStringConvertible {
    /// `the server answered 401 (unauthorized): wrong username or password`.
    var description: String {
        let phrase = HTTPURLResponse.localizedString(forStatusCode: status).lowercased()
        return "the server answered \(status) (\(phrase)): \(reason)"
    }
}

// MARK: - LocalizedError

extension APIError: LocalizedError {
    var errorDescription: String? { description }
}
