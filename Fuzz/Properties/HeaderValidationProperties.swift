import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Header validation (`HeaderValidation`): no name that is not an RFC 9110 token and no value with CR, LF or NUL
/// ever passes, every other field does, and a field that passes reaches the `URLRequest` unchanged; the same name
/// passes as a request method exactly when it is a token, and a `URLRequest` with it as its method is refused unless
/// it is.
package enum HeaderValidationProperties {
    /// Checks the properties on a name and a value read from `input`.
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let name = reader.string(upTo: 64)
        let value = String(decoding: reader.rest(), as: UTF8.self)
        let field = "\(name.debugDescription): \(value.debugDescription)"
        let isToken = !name.isEmpty && name.utf8.allSatisfy { isTokenByte($0) }
        let isSafe = !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
        if let problem = checkMethod(name, isToken: isToken) {
            return problem
        }
        do {
            try HeaderValidation.validate(name: name, value: value, in: "GET http://127.0.0.1/")
        } catch {
            return isToken && isSafe ? "\(field) is refused, but it is a valid field: \(error)" : nil
        }
        guard isToken, isSafe else {
            return "\(field) passes validation"
        }
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        request.setValue(value, forHTTPHeaderField: name)
        let stored = request.value(forHTTPHeaderField: name)
        guard stored == value else {
            return "\(field) passes validation, but URLRequest keeps \(stored.map { $0.debugDescription } ?? "nothing")"
        }
        return nil
    }

    /// `name` as a method: refused (alone and in a `URLRequest`) exactly when it is not a token.
    private static func checkMethod(_ name: String, isToken: Bool) -> String? {
        let url = URL(fileURLWithPath: "/")
        var request = URLRequest(url: url)
        request.httpMethod = name
        let sent = request.httpMethod ?? "GET"
        var refusals = 0
        do {
            try HeaderValidation.validate(method: name, url: url)
        } catch {
            refusals += 1
        }
        do {
            try HeaderValidation.validate(request, for: PlainRequest(url: url))
        } catch {
            refusals += 1
        }
        switch (isToken, refusals) {
        case (true, 0): return nil
        case (false, 2): return nil
        case (false, 1) where sent != name:
            // URLRequest would not keep this method (it sends another): the request is checked as it would go.
            return nil
        default:
            return "the method \(name.debugDescription) (a token: \(isToken)) was refused \(refusals) of 2 times"
        }
    }

    private struct PlainRequest: Request {
        let url: URL
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
