import Foundation

/// The check every file path a user hands Fetch passes before anything is sent, read or written: a download's
/// destination, an upload's source, a HAR file.
///
/// Such a path names one regular file, the user's: Fetch may read it, or replace it whole, and nothing else. So the
/// path is refused when it
///
/// - is not a file URL, or holds a NUL byte (which `open(2)` would cut the path at);
/// - has a `.` or `..` component (`a/b/..` names `a`, and a write "to" it would land outside the folder the path
///   seems to name);
/// - ends in `/` (it names a directory);
/// - names an existing directory, a symbolic link (which Fetch does not follow) or anything else that is not a
///   regular file (a device, a pipe, a socket).
///
/// Only the last component is looked at with `lstat(2)`: the directories above it are the user's to lay out as they
/// like, symbolic links included (`/tmp` is one on macOS).
enum FilePathCheck {
    /// What the path is for, which decides what must be there already.
    enum Use {
        /// A file Fetch writes: nothing there, or a regular file that it replaces whole.
        case writing
        /// A file Fetch reads: a regular file must be there.
        case reading
    }

    /// Why `url` cannot be used for `use`, as a clause that follows the path (`"it is a directory"`), or `nil`
    /// when it can.
    static func problem(with url: URL, for use: Use) -> String? {
        guard url.isFileURL else {
            return "it is not a file URL"
        }
        // Read as bytes, as `open(2)` reads the path: read as Characters, these checks cost each download about
        // 100,000 instructions (callgrind).
        let paths = [url.relativePath, url.path]
        if paths.contains(where: { $0.utf8.contains(0) }) {
            return "its path holds a NUL byte"
        }
        if let dots = paths.lazy.compactMap(dotComponent(of:)).first {
            return "its path has a \"\(dots)\" component, which Fetch does not resolve for a file it uses"
        }
        switch OwnerOnlyFile.kind(at: url) {
        case .symbolicLink:
            return "it is a symbolic link, which Fetch does not follow for a file it uses"
        case .directory:
            return "it is a directory"
        case .other:
            return "it is not a regular file"
        case .regularFile, .nothing:
            break
        }
        if url.relativePath.hasSuffix("/") || url.absoluteString.hasSuffix("/") {
            return "its path ends in \"/\", so it names a directory"
        }
        if use == .reading, OwnerOnlyFile.kind(at: url) == .nothing {
            return "there is no file there"
        }
        return nil
    }

    /// The first `.` or `..` component of `path`, split at every `/` byte as the kernel splits it: also after a
    /// `/` that a combining mark follows, which Swift counts as one `Character` with it.
    private static func dotComponent(of path: String) -> String? {
        var dots = 0  // the dots the component holds so far; -1 once it holds anything else
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if dots == 1 || dots == 2 {
                    break
                }
                dots = 0
            } else if byte == UInt8(ascii: "."), dots >= 0 {
                dots += 1
            } else {
                dots = -1
            }
        }
        return dots == 1 || dots == 2 ? String(repeating: ".", count: dots) : nil
    }

    /// The path of `url` as a message shows it: its file path, with the `/` it ends in, or the URL itself when it
    /// is not a file URL.
    static func shown(_ url: URL) -> String {
        guard url.isFileURL else {
            return url.absoluteString
        }
        if url.baseURL != nil {
            // Relative to the working directory: `path` has resolved the `..` a message may be about.
            return url.relativePath
        }
        return url.hasDirectoryPath && !url.path.hasSuffix("/") ? url.path + "/" : url.path
    }
}
