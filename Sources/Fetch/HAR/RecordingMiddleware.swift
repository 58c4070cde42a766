import Foundation

extension Middleware where Self == RecordingMiddleware {
    /// A middleware that records every call that gets a response into `harFile`, a HAR 1.2 archive that browsers'
    /// developer tools, Charles and Proxyman open, and that FetchTesting's `MockPerformer(replaying:)` answers from.
    ///
    /// ```swift
    /// let recorded = try session.with(.record(to: URL(fileURLWithPath: "api.har"), redacting: ["X-Session"]))
    /// let user: User = try await recorded.perform(GetUser(id: 1))
    /// ```
    ///
    /// Each call becomes one entry, written before the call completes. A secret a call sends is kept out of every
    /// entry, including the answer that handed it out (a login's token); the file on disk is a whole archive after
    /// every write (a temporary file renamed over it), so there is nothing to flush or close. A call whose entry
    /// cannot be written fails with that error, so a fixture never silently misses an exchange. Calls that fail
    /// without a response are not recorded. The recording sees the request as it reaches it: put it outermost, as
    /// here, to record what the app asked for rather than the credentials that middlewares inside it add.
    ///
    /// - Parameters:
    ///   - harFile: The archive to record into: appended to when it exists, created otherwise.
    ///   - redaction: The secrets kept out of the file besides those always kept out (see ``Redaction``:
    ///     credential headers, cookies, and headers, query parameters, form and multipart fields and JSON keys at
    ///     any depth whose name contains `token`, `secret` or `password`). The default adds none.
    ///   - maximumMultipartSize: How many bytes of a multipart request body are stored; the rest is cut, and the entry
    ///     says so. The default is 64 KiB.
    /// - Returns: The middleware.
    /// - Throws: ``HARError`` when `harFile` exists and is not a HAR archive, or is a directory or a symbolic link
    ///   (which is not followed), or its path ends in `/` or has `.` or `..` components.
    public static func record(
        to harFile: URL,
        redacting redaction: Redaction = [],
        maximumMultipartSize: Int = 65_536
    ) throws -> RecordingMiddleware {
        RecordingMiddleware(
            writer: try HARWriter(file: harFile), redaction: redaction, maximumMultipartSize: maximumMultipartSize)
    }
}

/// Records each call that gets a response as one entry of a HAR archive: made by
/// ``Middleware/record(to:redacting:maximumMultipartSize:)``.
public struct RecordingMiddleware: Middleware {
    let writer: HARWriter
    let redaction: Redaction
    let maximumMultipartSize: Int

    /// Passes `request` on through `next`, and records its response before answering.
    public func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        HARRecorder(redaction: redaction, maximumMultipartSize: maximumMultipartSize) { entry, request, response in
            try writer.append(
                entry, scrubbing: redaction.secrets(sentBy: request) + redaction.secrets(answeredBy: response))
        }.record(request, context: context, next: next, completion: completion)
    }
}

/// Passes a call on and, once it has a response, makes its HAR entry and hands it to `keep` before the call
/// completes: what the recording middleware uses.
package struct HARRecorder: Sendable {
    let redaction: Redaction
    let maximumMultipartSize: Int
    /// Keeps an entry (writes it, adds it to an archive); an error it throws fails the call, so that a fixture
    /// never silently misses an exchange.
    let keep: @Sendable (HAR.Entry, _ request: any Request, _ response: Response) throws -> Void

    /// - Parameters:
    ///   - redaction: The secrets kept out of each entry.
    ///   - maximumMultipartSize: How many bytes of a multipart request body an entry stores.
    ///   - keep: What to do with each entry, given it and the request and response it records.
    package init(
        redaction: Redaction,
        maximumMultipartSize: Int,
        keep: @escaping @Sendable (HAR.Entry, _ request: any Request, _ response: Response) throws -> Void
    ) {
        self.redaction = redaction
        self.maximumMultipartSize = maximumMultipartSize
        self.keep = keep
    }

    /// Passes `request` on and records its response; a stream, whose body goes to the caller as it arrives, and a
    /// call that fails without a response are passed on unrecorded. A WebSocket's opening handshake is recorded with
    /// its `101` head (the messages that follow are not).
    package func record(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        guard !context.isStreaming || context.isWebSocket else {
            next(request, completion: completion)
            return
        }
        let started = Date()
        let clock = ContinuousClock.now
        next(request) { [self] result in
            guard case .success(let response) = result else {
                completion(result)
                return
            }
            do {
                let elapsed = clock.duration(to: .now)
                // The phases the transport measured, when it did; the whole call's time as waiting otherwise.
                let timings =
                    response.metrics.map { HAR.Timings.measured($0, total: elapsed.seconds) } ?? .total(elapsed)
                var entry = try HAR.Entry(
                    request: request, response: response, startedDateTime: started, timings: timings,
                    redaction: redaction, maximumMultipartSize: maximumMultipartSize)
                entry.serverIPAddress = response.metrics?.remoteAddress
                // HAR's connection is an id of the connection: "the client or server port number".
                entry.connection = response.metrics?.remotePort.map(String.init)
                // The heads' sizes and the version spoken, where the transport counted them (libcurl); -1 and
                // HTTP/1.1 otherwise, as before.
                if let metrics = response.metrics {
                    entry.request.headersSize = metrics.requestHeaderBytes ?? -1
                    entry.response.headersSize = metrics.responseHeaderBytes ?? -1
                    if let version = metrics.httpVersion {
                        entry.request.httpVersion = version
                        entry.response.httpVersion = version
                    }
                }
                try keep(entry, request, response)
                completion(result)
            } catch {
                completion(.failure(error))
            }
        }
    }
}
