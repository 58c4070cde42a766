import Foundation

/// A `multipart/form-data` body: text fields and files, in order, as an HTML form with file inputs sends them.
///
/// ```swift
/// let form = MultipartBody()
///     .field("title", "Holiday")
///     .file("photo", contentsOf: photoURL, contentType: "image/jpeg")
/// let request = APIRequest(uploadURL).method(.post).multipartBody(form)
/// ```
///
/// When the fields and files together are larger than ``maximumInMemorySize``, the body is assembled in a temporary file, copying
/// each file a chunk at a time, and the request streams it from there; the file is deleted when the last copy of
/// the request is released (a ``Session`` keeps the request until its call completes). Smaller bodies are built
/// in memory and sent with a `Content-Length`.
///
/// The boundary is random, and Fetch checks that it occurs in no part (choosing another if it does). Field names
/// and file names are escaped as browsers do: `"` as `%22`, CR as `%0D`, LF as `%0A`; other characters are sent as
/// UTF-8.
public struct MultipartBody: Sendable {
    /// The size of the fields and files up to which the body is built in memory: 10 MB.
    package static let defaultMemoryLimit = 10_000_000

    /// The largest size of the fields and files together, in bytes, that is built in memory; larger bodies are
    /// streamed from a temporary file.
    public var maximumInMemorySize: Int

    package var parts: [Part] = []
    package var makeBoundary: @Sendable () -> String = { "Fetch-Boundary-" + UUID().uuidString }

    /// One field or file of the body.
    package struct Part: Sendable {
        package enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        package let name: String
        package let filename: String?
        package let contentType: String?
        package let content: Content
    }

    /// Creates an empty body.
    ///
    /// - Parameter maximumInMemorySize: The largest size of the fields and files together, in bytes, that is built in
    ///   memory rather than streamed from a temporary file. The default is 10 MB (10,000,000 bytes).
    public init(maximumInMemorySize: Int = 10_000_000) {
        self.maximumInMemorySize = maximumInMemorySize
    }

    /// Adds a text field, sent as UTF-8.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - value: The field's value; any text, line breaks included.
    /// - Returns: The body with the field added after the others.
    public func field(_ name: String, _ value: String) -> MultipartBody {
        adding(Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Adds a file read from disk when the request is built, a chunk at a time.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - fileURL: The file to send: a regular file. A directory, a symbolic link (which is not followed) or a
    ///     path with `.` or `..` components fails the request's building with
    ///     ``FetchError/encoding(_:request:)``, before anything is read or sent.
    ///   - filename: The file name the server sees. The default is the last component of `fileURL`.
    ///   - contentType: The file's media type. The default is `application/octet-stream`.
    /// - Returns: The body with the file added after the other parts.
    public func file(
        _ name: String,
        contentsOf fileURL: URL,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) -> MultipartBody {
        let part = Part(
            name: name,
            filename: filename ?? fileURL.lastPathComponent,
            contentType: contentType,
            content: .file(fileURL)
        )
        return adding(part)
    }

    /// Adds a file whose contents are already in memory.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - data: The file's contents.
    ///   - filename: The file name the server sees.
    ///   - contentType: The file's media type. The default is `application/octet-stream`.
    /// - Returns: The body with the file added after the other parts.
    public func file(
        _ name: String,
        data: Data,
        filename: String,
        contentType: String = "application/octet-stream"
    ) -> MultipartBody {
        adding(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }

    private func adding(_ part: Part) -> MultipartBody {
        var body = self
        body.parts.append(part)
        return body
    }
}
