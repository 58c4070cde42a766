import Foundation

/// A message on a ``WebSocket``: text or binary, whole, however many frames the peer split it into.
///
/// ```swift
/// for try await message in socket {
///     let update = try message.decode(ChatUpdate.self)
///     print(update.text)
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (opcode 1), whose UTF-8 Fetch has checked.
    case text(String)

    /// A binary message (opcode 2).
    case binary(Data)

    /// Decodes the message's JSON: the UTF-8 of a text message, or the bytes of a binary one.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder. The default is Fetch's, which reads ISO 8601 dates.
    /// - Returns: The decoded value.
    /// - Throws: ``FetchError/messageDecoding(_:_:)``, which quotes the message.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = DefaultDecoding.decoder) throws -> T {
        do {
            return try decoder.decode(T.self, from: bytes)
        } catch let error as DecodingError {
            throw FetchError.messageDecoding(error, self)
        }
    }

    /// The message's payload: the UTF-8 of a text message, the bytes of a binary one.
    package var bytes: Data {
        switch self {
        case .text(let text):
            Data(text.utf8)
        case .binary(let data):
            data
        }
    }

    /// `text` or `binary`, for messages about the message.
    package var kind: String {
        switch self {
        case .text:
            "text"
        case .binary:
            "binary"
        }
    }
}
