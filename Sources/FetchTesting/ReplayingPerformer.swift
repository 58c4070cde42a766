import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `RequestPerforming` object that answers from a HAR file what it has recorded, and sends what it has not
/// through a live performer, recording the answer into the file: a test suite refreshes its fixtures by changing
/// one setting.
///
/// ```swift
/// let performer = try ReplayingPerformer(
///     harFile: fixtures.appendingPathComponent("api.har"),
///     mode: ProcessInfo.processInfo.environment["RECORD"] == nil ? .once : .record,
///     live: Session(transport: URLSessionTransport(configuration: .ephemeral))
/// )
/// ```
///
/// Replayed answers complete synchronously, before `perform` returns, as a ``MockPerformer``'s do; live ones
/// complete as the live performer completes them. Requests are matched as `MockPerformer(replaying:matching:)`
/// matches them. A live call that fails without a response (a transport error) is not recorded.
public final class ReplayingPerformer: RequestPerforming {
    /// When the file answers and when the live performer does.
    public enum Mode: Sendable {
        /// Only the file answers; a request it has no answer for fails with ``NoRecordedAnswer``. Nothing is sent.
        case replay
        /// The file answers what it has an answer for that has not answered yet; anything else is sent and
        /// recorded (VCR's "once").
        case once
        /// Everything is sent and recorded into a new archive, which replaces the file at the first answer.
        case record
    }

    /// The mode.
    public let mode: Mode

    /// The pipeline: the replaying middleware in front of the live performer's.
    public let pipeline: Pipeline

    /// Opens a HAR file to replay from and record into.
    ///
    /// - Parameters:
    ///   - harFile: The file. It need not exist yet.
    ///   - mode: When to replay and when to record. The default is ``Mode/once``.
    ///   - live: The performer that sends what is not replayed, such as a `Session`.
    ///   - matcher: How requests are matched with recorded ones. The default compares method, URL and body.
    ///   - redaction: Which secrets are kept out of the file besides those always kept out (see `HARRedaction`).
    ///     The default adds none.
    ///   - multipartLimit: How many bytes of a multipart request body are recorded.
    /// - Throws: `HARError` when the file exists but is not HAR, naming the JSON path of the problem.
    public init(
        harFile: URL,
        mode: Mode = .once,
        live: any RequestPerforming,
        matching matcher: HARMatcher = HARMatcher(),
        redacting redaction: HARRedaction = .default,
        multipartLimit: Int = HAR.Entry.defaultMultipartLimit
    ) throws {
        let replay: HARReplay
        let writer: HARWriter?
        switch mode {
        case .replay:
            replay = try HARReplay(HAR(contentsOf: harFile), file: harFile, matcher: matcher)
            writer = nil
        case .once:
            let opened = try HARWriter(file: harFile)
            replay = try HARReplay(opened.archive, file: harFile, matcher: matcher)
            writer = opened
        case .record:
            let opened = try HARWriter(file: harFile, startingOver: true)
            replay = try HARReplay(opened.archive, file: harFile, matcher: matcher)
            writer = opened
        }
        self.mode = mode
        self.pipeline = live.pipeline.with(
            ReplayingMiddleware(
                mode: mode, replay: replay, writer: writer, redaction: redaction, multipartLimit: multipartLimit))
    }

    /// Answers from the file, or sends the request through the live performer and records the answer.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - errorParser: The object that turns error bodies into errors, or `nil`.
    ///   - completion: Called exactly once: before this method returns for a replayed answer.
    /// - Returns: A handle that cancels a live call.
    @discardableResult
    public func perform<T: Parsable>(
        _ request: any Request,
        errorParser: (any ErrorParsing)?,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> any Cancellable {
        pipeline.perform(request, errorParser: errorParser, completion: completion)
    }
}

/// Answers from the archive, or passes the call on and records its answer, as the mode says.
private struct ReplayingMiddleware: Middleware {
    let mode: ReplayingPerformer.Mode
    let replay: HARReplay
    let writer: HARWriter?
    let redaction: HARRedaction
    let multipartLimit: Int

    func intercept(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        switch mode {
        case .replay:
            completion(
                MockExchange.response(for: request) { urlRequest in
                    try replay.answerOrFailure(for: request, sending: urlRequest)
                })
        case .once:
            switch Exchange.makeURLRequest(for: request, defaultTimeout: nil) {
            case .failure(let error):
                completion(.failure(error))
            case .success(let urlRequest):
                guard let answer = replay.answer(to: urlRequest, repeatingLast: false) else {
                    record(request, context: context, next: next, completion: completion)
                    return
                }
                completion(MockExchange.response(for: request) { _ in answer })
            }
        case .record:
            record(request, context: context, next: next, completion: completion)
        }
    }

    /// Passes `request` on and records its response into the archive and the file; a stream, whose body goes to
    /// the caller as it arrives, is passed on unrecorded.
    private func record(
        _ request: any Request,
        context: CallContext,
        next: Next,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        HARRecorder(redaction: redaction, multipartLimit: multipartLimit) {
            [writer, replay, redaction] entry, request in
            try writer?.append(entry, scrubbing: redaction.secrets(sentBy: request))
            try replay.add(entry)
        }.record(request, context: context, next: next, completion: completion)
    }
}
