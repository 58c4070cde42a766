import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A temporary file that holds the part of a streamed body that the consumer has not read yet, first in, first out.
///
/// The file is unlinked as soon as it is opened, so nothing is left behind however the process ends; it is emptied
/// whenever the reader catches up with the writer. Not thread-safe: ``ChunkBuffer`` uses it under its lock.
final class SpillFile {
    private let descriptor: Int32
    private var readOffset = 0
    private var writeOffset = 0

    /// The bytes written and not read yet.
    var unread: Int { writeOffset - readOffset }

    /// Opens a new, already unlinked, file in the temporary directory.
    init() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("fetch-stream-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw Self.error("open \(path) to hold a streamed body the consumer has not read yet")
        }
        unlink(path)
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Appends `data`.
    func write(_ data: Data) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var done = 0
            while done < buffer.count, let base = buffer.baseAddress {
                let written = pwrite(descriptor, base + done, buffer.count - done, off_t(writeOffset + done))
                guard written > 0 else {
                    if written < 0, errno == EINTR {
                        continue
                    }
                    throw Self.error("write \(buffer.count) bytes of a streamed body to a temporary file")
                }
                done += written
            }
        }
        writeOffset += data.count
    }

    /// Reads the oldest unread bytes, at most `limit` of them; empties the file once everything has been read.
    func read(upTo limit: Int) throws -> Data {
        let count = min(limit, unread)
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var done = 0
            while done < count, let base = buffer.baseAddress {
                let read = pread(descriptor, base + done, count - done, off_t(readOffset + done))
                guard read > 0 else {
                    if read < 0, errno == EINTR {
                        continue
                    }
                    throw Self.error("read back \(count) bytes of a streamed body from a temporary file")
                }
                done += read
            }
        }
        readOffset += count
        if readOffset == writeOffset {
            readOffset = 0
            writeOffset = 0
            // Only gives the disk space back: if it fails, the next writes overwrite the old bytes all the same.
            _ = ftruncate(descriptor, 0)
        }
        return data
    }

    private static func error(_ attempt: String) -> CocoaError {
        let reason = String(cString: strerror(errno))
        return CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "Could not \(attempt): \(reason)"])
    }
}
