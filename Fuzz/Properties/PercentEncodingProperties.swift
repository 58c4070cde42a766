import Fetch
import Foundation

/// Percent-encoding (`PercentEncoding`): every encoding is made only of its safe characters and `%XX`, and decodes
/// back to the input; a form body splits back into its fields.
package enum PercentEncodingProperties {
    /// Checks the properties on two strings read from `input`.
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let name = reader.string()
        let value = String(decoding: reader.rest(), as: UTF8.self)
        for text in [name, value] {
            let component = PercentEncoding.component(text)
            if let failure = verify(component, of: text, safe: "-._~", plusIsSpace: false) {
                return "component: \(failure)"
            }
            let form = PercentEncoding.formComponent(text)
            if let failure = verify(form, of: text, safe: "*-._", plusIsSpace: true) {
                return "form component: \(failure)"
            }
        }
        let body = PercentEncoding.form([(name, value), (value, name)])
        let fields = body.split(separator: "&", omittingEmptySubsequences: false).map {
            $0.split(separator: "=", omittingEmptySubsequences: false).map { decodeForm(String($0)) }
        }
        let expected: [[String?]] = [[name, value], [value, name]]
        guard fields == expected else {
            return "the form \(body.debugDescription) of \(name.debugDescription)=\(value.debugDescription) reads"
                + " back as \(fields)"
        }
        return nil
    }

    private static func verify(_ encoded: String, of text: String, safe: String, plusIsSpace: Bool) -> String? {
        var bytes = encoded.utf8[...]
        while let byte = bytes.popFirst() {
            let isSafe =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || safe.utf8.contains(byte) || (plusIsSpace && byte == UInt8(ascii: "+"))
            if isSafe {
                continue
            }
            let hex = Array(bytes.prefix(2))
            guard byte == UInt8(ascii: "%"), hex.count == 2, hex.allSatisfy(isUppercaseHexDigit) else {
                return "\(text.debugDescription) encodes as \(encoded.debugDescription), which has a bare byte \(byte)"
            }
            bytes = bytes.dropFirst(2)
        }
        let decoded = plusIsSpace ? decodeForm(encoded) : encoded.removingPercentEncoding
        guard decoded == text else {
            return "\(text.debugDescription) encodes as \(encoded.debugDescription), which decodes to"
                + " \(decoded.map { $0.debugDescription } ?? "nothing (invalid)")"
        }
        return nil
    }

    private static func decodeForm(_ text: String) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private static func isUppercaseHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte)
    }
}
