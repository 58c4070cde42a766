import Foundation

/// A request body ready to send: bytes in memory, or a temporary file to stream.
package enum EncodedBody: Sendable {
    case data(Data)
    case file(TemporaryFile, length: Int)
}

extension MultipartBody {
    /// How many bytes of a file are copied at a time.
    package static let chunkSize = 1 << 20

    /// How many boundaries are tried before giving up, when each one occurs in the content.
    private static let boundaryAttempts = 3

    /// Encodes the body: in memory when it is at most ``maximumInMemorySize`` bytes, otherwise into a temporary file.
    ///
    /// - Returns: The `Content-Type` to send (`multipart/form-data; boundary=…`) and the body.
    /// - Throws: ``FetchError/encoding(_:request:)`` when a file cannot be read or the temporary file written;
    ///   ``FetchError/invalidRequest(_:)`` when a part's content type contains a line break, or every boundary
    ///   tried occurs in a part.
    package func encoded() throws -> (contentType: String, body: EncodedBody) {
        for part in parts {
            if let contentType = part.contentType,
                contentType.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
            {
                throw FetchError.invalidRequest(
                    "multipart part \(part.name.debugDescription): its content type contains a line break or NUL,"
                        + " which would inject other headers: \(contentType.debugDescription)"
                )
            }
        }
        let inMemory = try contentLength() <= maximumInMemorySize
        var tried: [String] = []
        for _ in 0..<Self.boundaryAttempts {
            let boundary = makeBoundary()
            tried.append(boundary)
            let contentType = "multipart/form-data; boundary=\(boundary)"
            if inMemory {
                var sink = DataSink()
                if try write(boundary: boundary, to: &sink) {
                    return (contentType, .data(sink.data))
                }
            } else {
                let file = try TemporaryFile()
                var sink = try FileSink(file)
                if try write(boundary: boundary, to: &sink) {
                    try sink.close()
                    return (contentType, .file(file, length: sink.length))
                }
                try sink.close()
            }
        }
        throw FetchError.invalidRequest(
            "multipart body: each boundary tried occurs in a part: \(tried.joined(separator: ", "))"
        )
    }

    /// The size of the parts' contents, reading the sizes of files from disk.
    private func contentLength() throws -> Int {
        var length = 0
        for part in parts {
            switch part.content {
            case .data(let data):
                length += data.count
            case .file(let url):
                if let reason = FilePathCheck.problem(with: url, for: .reading) {
                    // A directory, a symbolic link or a path with `..` is never read into a body.
                    throw FetchError.encoding(
                        BodyEncodingError(
                            "multipart part \(part.name.debugDescription): cannot read \(FilePathCheck.shown(url)):"
                                + " \(reason)"))
                }
                do {
                    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                    length += (attributes[.size] as? NSNumber)?.intValue ?? 0
                } catch {
                    throw FetchError.encoding(
                        BodyEncodingError(
                            "multipart part \(part.name.debugDescription): cannot read the size of",
                            url, error)
                    )
                }
            }
        }
        return length
    }

    /// Writes the whole body; returns `false`, having stopped early, when `boundary` occurs in a part's headers or
    /// content.
    private func write(boundary: String, to sink: inout some BodySink) throws -> Bool {
        let delimiter = Data(boundary.utf8)
        for part in parts {
            var head = "Content-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
            if let filename = part.filename {
                head += "; filename=\"\(Self.escaped(filename))\""
            }
            if let contentType = part.contentType {
                head += "\r\nContent-Type: \(contentType)"
            }
            head += "\r\n\r\n"
            // A boundary in a part's headers is no delimiter (that starts with CRLF), but parsers that look for the
            // boundary alone would split the part there.
            guard Data(head.utf8).range(of: delimiter) == nil else {
                return false
            }
            head = "--\(boundary)\r\n" + head
            try sink.write(Data(head.utf8))
            switch part.content {
            case .data(let data):
                guard data.range(of: delimiter) == nil else {
                    return false
                }
                try sink.write(data)
            case .file(let url):
                guard try copy(url, of: part, to: &sink, unless: delimiter) else {
                    return false
                }
            }
            try sink.write(Data("\r\n".utf8))
        }
        try sink.write(Data("--\(boundary)--\r\n".utf8))
        return true
    }

    /// Copies a file a chunk at a time; returns `false`, having stopped early, when `delimiter` occurs in it.
    private func copy(_ url: URL, of part: Part, to sink: inout some BodySink, unless delimiter: Data) throws -> Bool {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw FetchError.encoding(
                BodyEncodingError("multipart part \(part.name.debugDescription): cannot open", url, error)
            )
        }
        // Closing a file that was only read cannot lose data; its error, if any, says nothing about the body.
        defer { try? handle.close() }
        // The end of the previous chunk, so that a delimiter split across two chunks is found too.
        var tail = Data()
        while true {
            let chunk: Data
            do {
                guard let read = try handle.read(upToCount: Self.chunkSize), !read.isEmpty else {
                    return true
                }
                chunk = read
            } catch {
                throw FetchError.encoding(
                    BodyEncodingError("multipart part \(part.name.debugDescription): cannot read", url, error)
                )
            }
            let junction = tail + chunk.prefix(delimiter.count - 1)
            guard junction.range(of: delimiter) == nil, chunk.range(of: delimiter) == nil else {
                return false
            }
            tail = Data((tail + chunk.suffix(delimiter.count - 1)).suffix(delimiter.count - 1))
            try sink.write(chunk)
        }
    }

    /// A field name or file name as browsers put it in a quoted header parameter (WHATWG HTML, "multipart/form-data
    /// encoding algorithm"): `"` as `%22`, CR as `%0D`, LF as `%0A`.
    package static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

/// Where an encoder writes a body.
private protocol BodySink {
    mutating func write(_ data: Data) throws
}

/// Collects a body in memory.
private struct DataSink: BodySink {
    var data = Data()

    mutating func write(_ data: Data) {
        self.data.append(data)
    }
}

/// Writes a body into a temporary file.
private struct FileSink: BodySink {
    let file: TemporaryFile
    let handle: FileHandle
    private(set) var length = 0

    init(_ file: TemporaryFile) throws {
        self.file = file
        do {
            handle = try FileHandle(forWritingTo: file.url)
        } catch {
            throw FetchError.encoding(BodyEncodingError("multipart body: cannot open", file.url, error))
        }
    }

    mutating func write(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
            length += data.count
        } catch {
            throw FetchError.encoding(BodyEncodingError("multipart body: cannot write", file.url, error))
        }
    }

    func close() throws {
        do {
            try handle.close()
        } catch {
            throw FetchError.encoding(BodyEncodingError("multipart body: cannot close", file.url, error))
        }
    }
}

/// A file that holds a request body until it is sent, deleted when the last reference to it goes.
package final class TemporaryFile: Sendable {
    /// Where the file is, in the system's temporary directory.
    package let url: URL

    /// Creates an empty file that only this user can read.
    package init() throws {
        let url = FileManager.default.temporaryDirectory.appending(path: "fetch-body-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw FetchError.encoding(
                BodyEncodingError("request body: cannot create the temporary file \(url.path)")
            )
        }
        self.url = url
    }

    deinit {
        // A deinit has no one to report to; a file left behind sits in the temporary directory, which the system
        // cleans.
        try? FileManager.default.removeItem(at: url)
    }
}

/// Why a body could not be encoded, with the file involved and the underlying error.
struct BodyEncodingError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    init(_ attempt: String, _ url: URL, _ error: any Error) {
        self.description = "\(attempt) \(url.path): \(error.localizedDescription)"
    }
}
