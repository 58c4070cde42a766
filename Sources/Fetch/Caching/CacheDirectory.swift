import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proof that a disk cache's directory and files are the user's own, before the cache trusts what they hold.
///
/// Another user who owns the directory, or may write to it, could plant a salt (and so choose the names of the
/// files and the tags of everyone's credentials), and plant responses served as fresh hits without a request. So a
/// directory is used only when it is no symbolic link, is owned by the process's effective user and may be written
/// by no one else (one that group or others may write to is made 0700 first); the salt file only when it is a
/// regular file of the user's that group and others may neither read nor write; and a response file is served only
/// when it is that too.
enum CacheDirectory {
    /// The permission bits of group and others.
    private static var groupAndOthers: mode_t { 0o077 }
    /// The write bits of group and others.
    private static var groupAndOthersWrite: mode_t { 0o022 }

    /// Opens `directory`, creating it (0700, and its parents as `FileManager` makes them) if it does not exist, once
    /// it is proven to be the user's own; a directory that group or others may write to is made 0700.
    ///
    /// - Returns: The directory, open (the caller closes it), and whether this call made it.
    /// - Throws: ``FetchError/invalidRequest(_:)`` naming the path and what is wrong with it; the file system's error
    ///   when its parents cannot be made.
    static func openOwn(_ directory: URL) throws -> (descriptor: Int32, created: Bool) {
        let path = directory.path
        try FileManager.default.createDirectory(
            at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        var created = true
        if mkdir(path, 0o700) != 0 {
            let code = errno
            guard code == EEXIST else {
                throw refusal(path, "it cannot be created (\(reason(code)))")
            }
            created = false
        }
        var linkStatus = stat()
        guard lstat(path, &linkStatus) == 0 else {
            throw refusal(path, "it cannot be looked at (\(reason(errno)))")
        }
        switch linkStatus.st_mode & S_IFMT {
        case S_IFLNK:
            throw refusal(path, "it is a symbolic link, which Fetch does not follow; give the directory it points to")
        case S_IFDIR:
            break
        default:
            throw refusal(path, "it is not a directory")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw refusal(path, "it cannot be opened (\(reason(errno)))")
        }
        do {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                throw refusal(path, "it cannot be looked at (\(reason(errno)))")
            }
            // What was opened is what `lstat` saw, not something put in its place meanwhile.
            guard status.st_dev == linkStatus.st_dev, status.st_ino == linkStatus.st_ino else {
                throw refusal(path, "it was replaced while the cache opened it")
            }
            guard status.st_uid == geteuid() else {
                throw refusal(
                    path,
                    "it is owned by user \(status.st_uid), not by this process's user \(geteuid()); another user's"
                        + " cache files and salt are never trusted")
            }
            // A directory the cache made is 0700 whatever the umask took away; one others may write to is made so.
            if created || status.st_mode & groupAndOthersWrite != 0 {
                guard fchmod(descriptor, 0o700) == 0 else {
                    throw refusal(
                        path,
                        "group or others may write to it (mode \(octal(status.st_mode))) and it cannot be made 0700"
                            + " (\(reason(errno)))")
                }
            }
        } catch {
            close(descriptor)
            throw error
        }
        return (descriptor, created)
    }

    /// Why the file of `status` (the salt file) cannot be trusted, or `nil` when it can: a regular file of this
    /// user's that group and others may neither read nor write.
    static func problem(with status: stat) -> String? {
        guard status.st_mode & S_IFMT == S_IFREG else {
            return "it is not a regular file"
        }
        guard status.st_uid == geteuid() else {
            return "it is owned by user \(status.st_uid), not by this process's user \(geteuid())"
        }
        guard status.st_mode & groupAndOthers == 0 else {
            return "group or others may read or write it (mode \(octal(status.st_mode)), not 0600)"
        }
        return nil
    }

    /// Whether the file of `status` is one the cache may serve from: ``problem(with:)`` finds nothing wrong.
    static func isOwnersOnly(_ status: stat) -> Bool {
        status.st_mode & S_IFMT == S_IFREG && status.st_uid == geteuid() && status.st_mode & groupAndOthers == 0
    }

    /// The error refusing `path` for `reason`.
    static func refusal(_ path: String, _ reason: String) -> FetchError {
        .invalidRequest("cannot use \(path) as a cache directory: \(reason)")
    }

    /// The system's text for `code`.
    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// The permission bits of `mode`, in octal: `0777`.
    private static func octal(_ mode: mode_t) -> String {
        "0" + String(UInt32(mode & 0o777), radix: 8)
    }
}
