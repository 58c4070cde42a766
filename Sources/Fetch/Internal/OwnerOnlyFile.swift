import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Files that hold what was sent and received (HAR recordings, partial downloads and their records): readable and
/// writable by their owner only (0600, whatever the umask), opened without following a symbolic link, and only when
/// they are regular files.
///
/// A symbolic link planted where such a file goes is never followed: opening it fails with
/// ``Failure/symbolicLink(_:)`` and the file it points to is neither read nor written. A replace goes through a new
/// file beside the old one, created exclusively, which `rename(2)` puts in place of whatever the path held.
enum OwnerOnlyFile {
    /// The mode of every file written: read and write for the owner, nothing for anyone else.
    static let mode: mode_t = 0o600

    /// Why a file could not be used.
    enum Failure: Error, CustomStringConvertible, Equatable {
        /// The path is a symbolic link, which is not followed.
        case symbolicLink(String)
        /// The path is something other than a regular file: a directory, a device, a pipe.
        case notRegularFile(String)
        /// A system call failed: the operation, the path and `strerror`'s text.
        case system(operation: String, path: String, reason: String)

        var description: String {
            switch self {
            case .symbolicLink(let path):
                "\(path) is a symbolic link, which Fetch does not follow for a file it writes"
            case .notRegularFile(let path):
                "\(path) is not a regular file"
            case .system(let operation, let path, let reason):
                "cannot \(operation) \(path): \(reason)"
            }
        }
    }

    /// What is at a path, without following a symbolic link there.
    enum Kind: Equatable {
        case nothing
        case regularFile
        case symbolicLink
        case directory
        /// A device, a pipe, a socket.
        case other
    }

    /// What is at `url`, looked at with `lstat(2)`.
    static func kind(at url: URL) -> Kind {
        var status = stat()
        guard lstat(url.path, &status) == 0 else {
            return .nothing
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFLNK: return .symbolicLink
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Opens the regular file at `url` for reading and writing, creating it (0600) when it is missing, and makes
    /// its mode 0600.
    ///
    /// - Throws: ``Failure``: a symbolic link or another kind of file at `url`, or the system's error.
    static func openForUpdating(_ url: URL) throws -> FileHandle {
        guard let descriptor = try openRegularFile(url, flags: O_RDWR | O_CREAT, operation: "open") else {
            throw Failure.system(operation: "open", path: url.path, reason: "no such file")
        }
        do {
            try makeOwnerOnly(descriptor, url)
        } catch {
            close(descriptor)
            throw error
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The contents of the regular file at `url`; `nil` when nothing is there.
    ///
    /// - Throws: ``Failure``: a symbolic link or another kind of file at `url`, or the system's error.
    static func read(_ url: URL) throws -> Data? {
        guard let descriptor = try openRegularFile(url, flags: O_RDONLY, operation: "read", missingIsNil: true) else {
            return nil
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw Failure.system(operation: "read", path: url.path, reason: ErrorText.describe(error))
        }
    }

    /// Replaces the file at `url` with `data` in one step: writes a new 0600 file beside it, flushes it to disk and
    /// renames it over `url`. A symbolic link at `url` is replaced, not followed.
    ///
    /// - Throws: ``Failure`` when the new file cannot be written or renamed; nothing is left of it then.
    static func replace(_ url: URL, with data: Data) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            guard
                let descriptor = try openRegularFile(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, operation: "create")
            else {
                throw Failure.system(operation: "create", path: temporary.path, reason: "no such file")
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            do {
                try makeOwnerOnly(descriptor, temporary)
                try handle.write(contentsOf: data)
                try handle.synchronize()
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure.system(operation: "write", path: temporary.path, reason: ErrorText.describe(error))
            }
            // The descriptor is closed when `handle` goes; every byte is on disk already.
            guard rename(temporary.path, url.path) == 0 else {
                throw Failure.system(
                    operation: "rename \(temporary.lastPathComponent) over", path: url.path, reason: lastError())
            }
        } catch {
            unlink(temporary.path)  // -1 when it was never made or is renamed already: nothing to remove
            throw error
        }
    }

    /// Puts the regular file at `source` in place of `destination` in one step with `rename(2)`: a regular file
    /// there is replaced, a directory never (`rename(2)` does not replace one with a file, and nothing is removed
    /// first), and a symbolic link there is replaced itself, never followed.
    ///
    /// - Throws: ``Failure/system(operation:path:reason:)`` when the rename fails; `source` is left as it is.
    static func moveIntoPlace(_ source: URL, over destination: URL) throws {
        switch kind(at: destination) {
        case .directory, .other:
            throw Failure.notRegularFile(destination.path)
        case .symbolicLink:
            throw Failure.symbolicLink(destination.path)
        case .nothing, .regularFile:
            break
        }
        guard rename(source.path, destination.path) == 0 else {
            throw Failure.system(
                operation: "rename \(source.lastPathComponent) over", path: destination.path, reason: lastError())
        }
    }

    /// Removes the file at `url` (a symbolic link itself, never its target); nothing when there is none.
    ///
    /// - Throws: ``Failure/system(operation:path:reason:)`` when something is there and cannot be removed.
    static func remove(_ url: URL) throws {
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw Failure.system(operation: "remove", path: url.path, reason: lastError())
        }
    }

    /// `open(2)` with `O_NOFOLLOW` and `O_CLOEXEC`, checked to be a regular file; `nil` when the file is missing
    /// and `missingIsNil`.
    private static func openRegularFile(
        _ url: URL, flags: Int32, operation: String, missingIsNil: Bool = false
    ) throws -> Int32? {
        let descriptor = open(url.path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let code = errno
            if missingIsNil, code == ENOENT {
                return nil
            }
            // Linux says ELOOP for a final symbolic link under O_NOFOLLOW; FreeBSD and macOS say ELOOP, NetBSD EFTYPE,
            // so the link is looked at again rather than trusted to one code.
            if code == ELOOP || kind(at: url) == .symbolicLink {
                throw Failure.symbolicLink(url.path)
            }
            throw Failure.system(operation: operation, path: url.path, reason: String(cString: strerror(code)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Failure.notRegularFile(url.path)
        }
        return descriptor
    }

    /// Sets the file's mode to 0600, whatever it was made with or changed to.
    private static func makeOwnerOnly(_ descriptor: Int32, _ url: URL) throws {
        guard fchmod(descriptor, mode) == 0 else {
            throw Failure.system(operation: "make owner-only", path: url.path, reason: lastError())
        }
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
