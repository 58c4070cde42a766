import Foundation

// MARK: - Parsable

extension Array: Parsable where Element: Parsable & Decodable {
    /// The element type's decoder, so that `[User]` reads dates and keys exactly as `User` does.
    public static var decoder: JSONDecoder { Element.decoder }
}
