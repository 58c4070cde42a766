/// The permessage-deflate extension (RFC 7692) as a client and a server agreed to it in the opening handshake: who
/// keeps their compression context between messages, and the window sizes.
///
/// The client offers `permessage-deflate; client_max_window_bits` (``offer``): it lets the server pick the client's
/// window, keeps its own context between messages (the server may still ask it not to), and leaves the server's
/// parameters to the server. It does not offer `client_no_context_takeover`: a chatty channel compresses best with
/// context, and the server can ask for it anyway.
package struct PerMessageDeflate: Sendable, Equatable {
    /// The `Sec-WebSocket-Extensions` value the client offers.
    package static let offer = "permessage-deflate; client_max_window_bits"

    /// The server compresses each message on its own (`server_no_context_takeover`).
    package var serverNoContextTakeover = false
    /// The client must compress each message on its own (`client_no_context_takeover`).
    package var clientNoContextTakeover = false
    /// The base-2 logarithm of the server's window, 8...15 (`server_max_window_bits`; 15 when not said).
    package var serverMaxWindowBits = 15
    /// The base-2 logarithm of the client's window, 8...15 (`client_max_window_bits`; 15 when not said).
    package var clientMaxWindowBits = 15

    /// An agreement with the defaults: context kept both ways, windows of 2^15 bytes.
    package init() {}

    /// The window the client compresses with: zlib's raw DEFLATE has no window of 2^8 bytes (it makes one of 2^9,
    /// which a server that asked for 8 could not read), so at 8 the client sends its messages uncompressed, as
    /// RFC 7692 §6 allows; nil then.
    package var clientCompressionWindowBits: Int? {
        clientMaxWindowBits >= 9 ? clientMaxWindowBits : nil
    }

    /// What a server's answer to ``offer`` (or to no offer) agrees to.
    package enum Negotiation: Sendable, Equatable {
        /// No extension: messages go uncompressed.
        case none
        /// permessage-deflate, with these parameters.
        case agreed(PerMessageDeflate)
        /// The answer breaks RFC 7692 or RFC 6455 §9.1; the reason names what came back.
        case failed(String)
    }

    /// Reads the `Sec-WebSocket-Extensions` field of a `101` response.
    ///
    /// Strict, as RFC 7692 §5 and §7.1 ask: the only extension a server may accept is the one offered, once; each
    /// parameter at most once; `server_no_context_takeover` and `client_no_context_takeover` without a value;
    /// `server_max_window_bits` and `client_max_window_bits` with a value of 8 to 15 (decimal, no leading zero,
    /// bare or quoted); no other parameter. Names compare without regard to case.
    ///
    /// - Parameters:
    ///   - answer: The field's value (repeated fields joined with `, `), or nil when the response has none.
    ///   - offered: Whether the request offered ``offer``.
    /// - Returns: What the answer agrees to, or why it fails the connection.
    package static func negotiate(answer: String?, offered: Bool) -> Negotiation {
        guard let answer, !answer.allSatisfy({ $0 == " " || $0 == "\t" }) else {
            return .none
        }
        let quoted = answer.debugDescription
        guard offered else {
            return .failed("the 101 response accepts the extension \(quoted), which was not asked for")
        }
        guard let extensions = parse(answer) else {
            return .failed("the 101 response's Sec-WebSocket-Extensions, \(quoted), is not a valid extension list")
        }
        guard extensions.count == 1, let accepted = extensions.first else {
            return .failed(
                "the 101 response accepts \(extensions.count) extensions, \(quoted); only permessage-deflate was"
                    + " offered, once")
        }
        guard accepted.name.lowercased() == "permessage-deflate" else {
            return .failed(
                "the 101 response accepts the extension \(accepted.name.debugDescription), which was not offered"
                    + " (only permessage-deflate was)")
        }
        var agreement = PerMessageDeflate()
        var seen: Set<String> = []
        for (name, value) in accepted.parameters {
            let key = name.lowercased()
            guard seen.insert(key).inserted else {
                return .failed("the 101 response's permessage-deflate repeats the parameter \(name) (in \(quoted))")
            }
            switch key {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else {
                    return .failed(
                        "the 101 response's permessage-deflate gives \(name) a value, which it may not have (in"
                            + " \(quoted))")
                }
                if key == "server_no_context_takeover" {
                    agreement.serverNoContextTakeover = true
                } else {
                    agreement.clientNoContextTakeover = true
                }
            case "server_max_window_bits", "client_max_window_bits":
                guard let value, let bits = windowBits(value) else {
                    return .failed(
                        "the 101 response's permessage-deflate gives \(name) "
                            + (value.map { "the value \($0.debugDescription)" } ?? "no value")
                            + ", not a number from 8 to 15 (in \(quoted))")
                }
                if key == "server_max_window_bits" {
                    agreement.serverMaxWindowBits = bits
                } else {
                    agreement.clientMaxWindowBits = bits
                }
            default:
                return .failed(
                    "the 101 response's permessage-deflate has the unknown parameter \(name) (in \(quoted))")
            }
        }
        return .agreed(agreement)
    }

    /// A window size's value: 8 to 15 in decimal, without a leading zero (RFC 7692 §7.1.2).
    private static func windowBits(_ value: String) -> Int? {
        switch value {
        case "8": 8
        case "9": 9
        case "10": 10
        case "11": 11
        case "12": 12
        case "13": 13
        case "14": 14
        case "15": 15
        default: nil
        }
    }

    /// An extension of a `Sec-WebSocket-Extensions` list: its name and parameters, values unquoted.
    private struct Extension {
        var name: String
        var parameters: [(name: String, value: String?)] = []
    }

    /// The extensions of a list (RFC 6455 §9.1: `1#extension`, `extension = token *( ";" param )`,
    /// `param = token [ "=" ( token | quoted-string ) ]`), or nil when it breaks that grammar.
    private static func parse(_ list: String) -> [Extension]? {
        var scanner = Scanner(Array(list.utf8))
        var extensions: [Extension] = []
        while true {
            scanner.skipSpaces()
            if scanner.take(UInt8(ascii: ",")) {
                continue  // an empty element of a list (RFC 9110 §5.6.1)
            }
            guard !scanner.isAtEnd else {
                break
            }
            guard let name = scanner.token() else {
                return nil
            }
            var element = Extension(name: name)
            scanner.skipSpaces()
            while scanner.take(UInt8(ascii: ";")) {
                scanner.skipSpaces()
                guard let parameter = scanner.token() else {
                    return nil
                }
                scanner.skipSpaces()
                var value: String?
                if scanner.take(UInt8(ascii: "=")) {
                    scanner.skipSpaces()
                    guard let text = scanner.token() ?? scanner.quotedString() else {
                        return nil
                    }
                    value = text
                    scanner.skipSpaces()
                }
                element.parameters.append((parameter, value))
            }
            extensions.append(element)
            guard scanner.isAtEnd || scanner.take(UInt8(ascii: ",")) else {
                return nil
            }
        }
        return extensions.isEmpty ? nil : extensions
    }

    /// Reads tokens and quoted strings from bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { index >= bytes.count }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 {
                index += 1
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else {
                return false
            }
            index += 1
            return true
        }

        /// A token (RFC 9110 §5.6.2), or nil (nothing consumed) when none starts here.
        mutating func token() -> String? {
            let start = index
            while index < bytes.count, HeaderName.isTokenByte(bytes[index]) {
                index += 1
            }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// A quoted string's content, unescaped (RFC 9110 §5.6.4), or nil when none starts here or it is not closed.
        mutating func quotedString() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                return nil
            }
            var position = index + 1
            var content: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    index = position + 1
                    return String(decoding: content, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") {
                    position += 1
                    guard position < bytes.count else {
                        return nil
                    }
                }
                guard bytes[position] == 0x09 || bytes[position] >= 0x20, bytes[position] != 0x7F else {
                    return nil
                }
                content.append(bytes[position])
                position += 1
            }
            return nil
        }
    }
}
