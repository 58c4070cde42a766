import Foundation

/// How a download (``RequestPerforming/download(_:to:resumption:errorParser:)``) continues when its connection drops
/// or times out midway: it asks for the rest with `Range: bytes=N-`, and keeps the bytes so far on disk so that a
/// later run can finish it.
///
/// ```swift
/// let download = session.download(
///     GetFile(name: "video.mp4"), to: destination,
///     resumption: DownloadResumption(
///         retryPolicy: RetryPolicy(maximumAttempts: 5),
///         expectedSHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
///     ))
/// ```
///
/// While it runs, the body goes to a partial file beside the destination (`<destination>.part`), and a small JSON
/// record of what it is (`<destination>.part.json`: the URL, the validator, the bytes so far, the total) goes next
/// to it. When the body is whole, its length is checked against the total and its SHA-256 against
/// ``expectedSHA256``; only then is it moved to the destination and the record deleted.
///
/// Each attempt is a call of its own through the performer's middlewares, which see its `Range` and `If-Range`: a
/// signing middleware signs each, a retry middleware retries each head. The attempts share their observers: an
/// ``Middleware/observe(_:)`` hears every attempt of the download, and before each one that resumes,
/// ``FetchEvent/Name/transferResumed`` with the ``FetchEvent/offset`` it goes on from (the first attempt's too, when
/// it resumes an earlier run's partial file).
///
/// - A dropped or timed-out connection is retried as ``retryPolicy`` decides, with its backoff, waiting through
///   ``scheduler``. Its ``RetryPolicy/maximumAttempts`` bounds the attempts in a row that make no progress; an
///   attempt makes progress when the file gets past the furthest byte it has held in this run, and the count then
///   starts again. In all, a download makes at most ten times ``RetryPolicy/maximumAttempts`` attempts, those that
///   made progress and the start-overs after an untrusted answer included; then it fails with
///   ``FetchError/attemptsExhausted(attempts:lastError:request:)``. So a long download survives many drops that each
///   move it forward, and a server that drops it at the same byte every time, or answers each resumption with a
///   `206` that cannot be used, cannot keep it going for ever.
/// - Only a strong validator (RFC 9110 §13.1.5) resumes: the request for the rest carries `If-Range` with the
///   response's strong `ETag`, else its `Last-Modified` when that is at least one second before the response's
///   `Date` (RFC 9110 §8.8.2.2). With only a weak `ETag`, or a `Last-Modified` as late as its `Date` (the resource
///   may have changed twice within that second), a dropped download starts over from byte 0
///   (``TransferProgress/RestartReason/noValidator``): splicing two versions into one file is never a success. A
///   `206 Partial Content` is appended only when it is the part asked for, of the same version: its `ETag` (or
///   `Last-Modified`) is the one the partial file was fetched with, its `Content-Range` starts where the file ends
///   and agrees with the total known and with its `Content-Length`. Any other `206` (a server that ignores
///   `If-Range` and sends another version, a range that starts elsewhere or does not parse) is not trusted: the
///   partial file is emptied and the download starts over with a request for the whole resource
///   (``TransferProgress/RestartReason/resourceChanged`` or ``TransferProgress/RestartReason/rangesNotSupported``).
///   A `206` to a request for the whole, a `206` whose `Content-Length` is not the length of its `Content-Range`,
///   or a body longer than its response announced, fails the download with
///   ``FetchError/integrityCheckFailed(url:reason:request:)``, and the partial file goes.
/// - A `200` means the resource changed, and the download starts over with it; a `416` ends the download when the
///   bytes kept are the whole resource, and starts it over otherwise.
/// - A server that does not send `Accept-Ranges: bytes`, or sends no strong validator, cannot be resumed safely: the
///   download starts over instead. Each start-over is announced in the progress values
///   (``TransferProgress/Event/restarting(_:)``), as is each resumption (``TransferProgress/Event/resuming``).
/// - A partial file left by an earlier run, whose record names the same URL and is consistent with the file, is
///   resumed; any other partial file or record is deleted and the download starts clean. Both are written readable
///   by their owner only (0600) and opened without following a symbolic link: a symbolic link (or anything but a
///   regular file) at either path fails the download with ``FetchError/invalidRequest(_:)`` before anything is
///   sent, and is left as it is.
/// - The request's ``Request/timeout`` bounds each attempt as a whole, from the request to the body's last byte,
///   however steadily the body arrives; a timed-out attempt is retried as ``retryPolicy`` decides. Bytes that the
///   next attempt cannot keep (a server that cannot resume) do not count as progress, so such attempts are bounded
///   by ``RetryPolicy/maximumAttempts``.
///
/// Partial files stay after a cancellation or a transport failure, so that the download can resume later, and are
/// deleted after success or an error status. ``removePartialFiles(for:)`` deletes them.
public struct DownloadResumption: Sendable {
    /// When to try again after a dropped connection, a timeout or a retryable status, and how long to wait.
    ///
    /// Its ``RetryPolicy/maximumAttempts`` counts the attempts in a row that get no further than an earlier one;
    /// the download makes at most ten times as many attempts in all, however many of them made progress.
    public var retryPolicy: RetryPolicy

    /// The clock and timer for the waits between attempts.
    public var scheduler: any Scheduling

    /// The SHA-256 the finished file must have, as 64 hexadecimal digits (either case), or `nil` not to check.
    public var expectedSHA256: String?

    /// Creates the resumption settings of a download.
    ///
    /// - Parameters:
    ///   - retryPolicy: When to try again and how long to wait. The default is `RetryPolicy()`.
    ///   - scheduler: The clock and timer for the waits. The default is real time.
    ///   - expectedSHA256: The digest the finished file must have, or `nil`.
    public init(
        retryPolicy: RetryPolicy = RetryPolicy(),
        scheduler: any Scheduling = DispatchScheduler(),
        expectedSHA256: String? = nil
    ) {
        self.retryPolicy = retryPolicy
        self.scheduler = scheduler
        self.expectedSHA256 = expectedSHA256
    }

    /// The partial file that a resumable download to `destination` writes while it runs: `<destination>.part`.
    package static func partialFile(for destination: URL) -> URL {
        destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part")
    }

    /// The record beside the partial file of a download to `destination`.
    static func recordFile(for destination: URL) -> URL {
        destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".part.json")
    }

    /// Deletes the partial file and its record that a resumable download to `destination` left, if any.
    ///
    /// - Parameter destination: The download's destination.
    /// - Throws: The file system's error when a file exists but cannot be deleted.
    public static func removePartialFiles(for destination: URL) throws {
        // unlink(2): a directory at either path (which no download made) is never removed, a symbolic link is
        // removed itself, never what it points to.
        for url in [partialFile(for: destination), recordFile(for: destination)] {
            try OwnerOnlyFile.remove(url)
        }
    }
}
