import Fetch
import Foundation

/// Multipart encoding (`MultipartBody.encoded()`): the boundary occurs nowhere in the parts (neither in their contents
/// nor in their headers), so the body splits back into exactly the fields and files given, byte for byte; and a body
/// is refused only when its content type has a line break or every boundary tried occurs in it.
///
/// The boundaries tried are short strings over `ab-`, read from the input, so that the fuzzer can make them collide
/// with the content; the encoder's own random boundaries are 51 characters long.
package enum MultipartBodyProperties {
    private struct Part {
        let name: String
        let filename: String?
        let contentType: String?
        let content: Data

        /// The part as it must appear between two delimiters.
        var encoded: Data {
            var head = "Content-Disposition: form-data; name=\"\(MultipartBody.escaped(name))\""
            if let filename {
                head += "; filename=\"\(MultipartBody.escaped(filename))\""
            }
            if let contentType {
                head += "\r\nContent-Type: \(contentType)"
            }
            return Data((head + "\r\n\r\n").utf8) + content
        }
    }

    /// Checks the properties on the form that `input` describes.
    package static func check(_ input: Data) -> String? {
        var reader = FuzzInput(input)
        let inFile = reader.byte() & 1 == 1
        let boundaries = (0..<3).map { _ in candidateBoundary(&reader) }
        var parts: [Part] = []
        while !reader.isAtEnd, parts.count < 8 {
            if reader.byte() & 1 == 0 {
                parts.append(
                    Part(
                        name: reader.string(upTo: 16), filename: nil, contentType: nil,
                        content: Data(reader.string(upTo: 64).utf8)))
            } else {
                parts.append(
                    Part(
                        name: reader.string(upTo: 16), filename: reader.string(upTo: 16),
                        contentType: reader.string(upTo: 16), content: reader.chunk(upTo: 64)))
            }
        }
        var body = MultipartBody(maximumInMemorySize: inFile ? 0 : .max)
        let next = Locked(boundaries[...])
        body.makeBoundary = { next.withLock { $0.popFirst() ?? "exhausted" } }
        for part in parts {
            if let filename = part.filename, let contentType = part.contentType {
                body = body.file(part.name, data: part.content, filename: filename, contentType: contentType)
            } else {
                body = body.field(part.name, String(decoding: part.content, as: UTF8.self))
            }
        }
        let description =
            "\(parts.count) parts \(parts.map { String(decoding: $0.encoded, as: UTF8.self) })"
            + " with the boundaries \(boundaries)"
        let encoded: (contentType: String, body: EncodedBody)
        do {
            encoded = try body.encoded()
        } catch {
            let hasLineBreak = parts.contains { part in
                part.contentType?.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } == true
            }
            let usable = boundaries.first { boundary in !parts.contains { $0.encoded.contains(Data(boundary.utf8)) } }
            if !hasLineBreak, let usable {
                return "\(description) are refused (\(error)), but \(usable.debugDescription) occurs in no part"
            }
            return nil
        }
        let data: Data
        switch encoded.body {
        case .data(let bytes):
            data = bytes
        case .file(let file, let length):
            do {
                data = try Data(contentsOf: file.url)
            } catch {
                return "\(description): cannot read the encoded body back: \(error)"
            }
            guard data.count == length else {
                return "\(description): the body file has \(data.count) bytes, not the \(length) announced"
            }
        }
        let prefix = "multipart/form-data; boundary="
        guard encoded.contentType.hasPrefix(prefix) else {
            return "\(description): the content type is \(encoded.contentType.debugDescription)"
        }
        let boundary = String(encoded.contentType.dropFirst(prefix.count))
        guard boundaries.contains(boundary) else {
            return "\(description): the boundary \(boundary.debugDescription) is none of those given"
        }
        return verify(data, boundary: boundary, parts: parts).map { "\(description): \($0)" }
    }

    /// Splits `data` at the delimiters of `boundary` and compares what is between them with `parts`.
    private static func verify(_ data: Data, boundary: String, parts: [Part]) -> String? {
        let first = Data("--\(boundary)".utf8)
        let delimiter = Data("\r\n--\(boundary)".utf8)
        guard !parts.isEmpty else {
            let expected = Data("--\(boundary)--\r\n".utf8)
            return data == expected
                ? nil : "the empty body is \(String(decoding: data, as: UTF8.self).debugDescription)"
        }
        guard data.starts(with: first + Data("\r\n".utf8)) else {
            return
                "the body does not start with the delimiter: \(String(decoding: data, as: UTF8.self).debugDescription)"
        }
        var position = data.startIndex + first.count + 2
        for (index, part) in parts.enumerated() {
            guard let end = data.range(of: delimiter, in: position..<data.endIndex) else {
                return "part \(index) has no delimiter after it"
            }
            let found = data[position..<end.lowerBound]
            guard found == part.encoded else {
                return "part \(index) reads back as \(String(decoding: found, as: UTF8.self).debugDescription)"
            }
            guard found.range(of: Data(boundary.utf8)) == nil else {
                return "part \(index) contains the boundary \(boundary.debugDescription)"
            }
            let rest = data[end.upperBound...]
            let isLast = index == parts.count - 1
            let expected = Data((isLast ? "--\r\n" : "\r\n").utf8)
            guard rest.starts(with: expected), !isLast || rest.count == expected.count else {
                return "after part \(index) comes \(String(decoding: rest.prefix(8), as: UTF8.self).debugDescription)"
            }
            position = end.upperBound + expected.count
        }
        return nil
    }

    /// A boundary of 1 to 8 characters over `ab-`.
    private static func candidateBoundary(_ reader: inout FuzzInput) -> String {
        let alphabet = Array("ab-")
        let length = Int(reader.byte() % 8) + 1
        return String((0..<length).map { _ in alphabet[Int(reader.byte()) % alphabet.count] })
    }
}
