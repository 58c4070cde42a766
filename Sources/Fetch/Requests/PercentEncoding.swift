/// The percent-encodings that requests use, byte by byte over UTF-8, so that every character of user input arrives
/// as itself.
///
/// `URLComponents.queryItems` leaves `+`, `&`-like sub-delimiters and `;` as they are; servers read a raw `+` in a
/// query as a space. These encoders leave nothing to interpretation: every byte outside a small safe set is written
/// as `%XX`.
package enum PercentEncoding {
    /// Encodes a path segment, a query name or a query value: every byte but the RFC 3986 unreserved characters
    /// (`A-Z a-z 0-9 - . _ ~`) is percent-encoded, so a space is `%20`, `+` is `%2B` and `/` is `%2F`.
    package static func component(_ text: String) -> String {
        encode(text, keeping: isUnreserved, spaceAsPlus: false)
    }

    /// Encodes a name or value of an `application/x-www-form-urlencoded` body as the WHATWG URL standard (and so
    /// every browser) does: a space is `+`; `*-._`, letters and digits stay; every other byte is percent-encoded.
    package static func formComponent(_ text: String) -> String {
        encode(text, keeping: isFormSafe, spaceAsPlus: true)
    }

    /// An `application/x-www-form-urlencoded` body: the fields in the order given, `name=value` joined by `&`.
    package static func form(_ fields: [(name: String, value: String)]) -> String {
        fields.map { "\(formComponent($0.name))=\(formComponent($0.value))" }.joined(separator: "&")
    }

    private static func encode(_ text: String, keeping isKept: (UInt8) -> Bool, spaceAsPlus: Bool) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isKept(byte) {
                encoded.append(byte)
            } else if spaceAsPlus, byte == UInt8(ascii: " ") {
                encoded.append(UInt8(ascii: "+"))
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            false
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "-._~".utf8.contains(byte)
    }

    private static func isFormSafe(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "*-._".utf8.contains(byte)
    }
}
