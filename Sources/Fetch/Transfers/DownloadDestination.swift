import Foundation

/// The check a download's destination passes before anything is sent.
enum DownloadDestination {
    /// Why the body of `request` cannot be written to `destination`, or `nil` when it can: the destination passes
    /// ``FilePathCheck`` (it names a regular file or nothing, never a directory, a symbolic link or a path with `.`
    /// or `..`), and its directory exists.
    ///
    /// Checked before the request is sent, so that a mistyped path costs no transfer and destroys nothing:
    /// otherwise the body would be downloaded whole and then lost when it could not be moved into place.
    static func problem(with destination: URL, for request: any Request) -> FetchError? {
        let call = "\(request.method) \(request.url.absoluteString)"
        if let reason = FilePathCheck.problem(with: destination, for: .writing) {
            return .invalidRequest(
                "\(call): cannot download to \(FilePathCheck.shown(destination)): \(reason); nothing was sent,"
                    + " and nothing there was changed")
        }
        let directory = destination.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            return .invalidRequest(
                "\(call): cannot download to \(destination.path): the directory \(directory.path) does not exist")
        }
        guard isDirectory.boolValue else {
            return .invalidRequest(
                "\(call): cannot download to \(destination.path): \(directory.path) is a file, not a directory")
        }
        return nil
    }
}
