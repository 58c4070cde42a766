import Fetch
import Foundation

/// A JSON document, compared as JSON: key order and spacing do not matter, and the string `REDACTED` in a
/// recorded body matches any value.
enum JSONValue: Sendable, Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Where two documents first differ, and what each holds there.
    struct Difference: Sendable {
        let path: String
        let recorded: String
        let request: String
    }

    /// The document in `data`; `nil` when it is not JSON (or empty).
    init?(_ data: Data) {
        guard !data.isEmpty else {
            return nil
        }
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            // Not JSON: the caller compares the bytes instead.
            return nil
        }
    }

    /// The document without the keys `names`, at any depth.
    func removingKeys(_ names: Set<String>) -> JSONValue {
        guard !names.isEmpty else {
            return self
        }
        switch self {
        case .object(let members):
            return .object(members.filter { !names.contains($0.key) }.mapValues { $0.removingKeys(names) })
        case .array(let elements):
            return .array(elements.map { $0.removingKeys(names) })
        case .string, .number, .bool, .null:
            return self
        }
    }

    /// Where `request` first differs from this recorded document; `nil` when they match.
    func difference(from request: JSONValue, at path: String = "") -> Difference? {
        let here = path.isEmpty ? "the top level" : path
        switch (self, request) {
        case (.string(Redaction.placeholder), _):
            return nil
        case (.object(let recorded), .object(let sent)):
            for key in Set(recorded.keys).union(sent.keys).sorted() {
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                switch (recorded[key], sent[key]) {
                case (let recordedValue?, let sentValue?):
                    if let difference = recordedValue.difference(from: sentValue, at: keyPath) {
                        return difference
                    }
                case (let recordedValue?, nil):
                    return Difference(path: keyPath, recorded: recordedValue.summary, request: "nothing")
                case (nil, let sentValue?):
                    return Difference(path: keyPath, recorded: "nothing", request: sentValue.summary)
                case (nil, nil):
                    break
                }
            }
            return nil
        case (.array(let recorded), .array(let sent)):
            guard recorded.count == sent.count else {
                return Difference(
                    path: here, recorded: "\(recorded.count) elements", request: "\(sent.count) elements")
            }
            for (index, pair) in zip(recorded, sent).enumerated() {
                if let difference = pair.0.difference(from: pair.1, at: "\(path)[\(index)]") {
                    return difference
                }
            }
            return nil
        default:
            return self == request ? nil : Difference(path: here, recorded: summary, request: request.summary)
        }
    }

    /// The value as JSON text, shortened.
    private var summary: String {
        let text: String
        switch self {
        case .object(let members): text = "an object of \(members.count) keys"
        case .array(let elements): text = "an array of \(elements.count) elements"
        case .string(let string): text = string.debugDescription
        case .number(let number):
            text = number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let bool): text = String(bool)
        case .null: text = "null"
        }
        return text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}

// MARK: - Decodable

extension JSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            // Each `try?` here only asks whether the value is of that kind; the last one throws.
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
