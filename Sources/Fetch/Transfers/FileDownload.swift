import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One download to a file: a streamed call through the performer's ``Pipeline`` per attempt, whose body it writes
/// to a partial file itself, and, when it is resumable, the decisions between attempts (resume, start over, wait,
/// give up) that ``DownloadResumption`` describes.
///
/// Every attempt is a call of its own through the middlewares, with its `Range` and `If-Range` in the request they
/// see: a signing middleware signs each one, a retry middleware retries each head, observers see each.
///
/// Everything mutable is in `state`, behind its lock, the partial file's handle included: the pipeline's answers, a
/// cancellation and the scheduler's timer may come from different threads. Progress values and the completion go
/// through `outbox` in the order they were made, under `state`'s lock, and are handed over one at a time under
/// `delivery`'s lock, so that the receiver sees them in order, and nothing after the completion.
final class FileDownload: CancellableCall {
    private enum Phase {
        case created
        case running(Attempt)
        /// Between attempts; the handle is `nil` for the moment between deciding to wait and scheduling the wait.
        case waiting((any CancellableCall)?)
        /// The body is whole and being checked and moved.
        case finishing
        case finished
    }

    /// What the current response's body is for.
    private enum Reception {
        case nothing
        /// Bytes of the resource, appended to the partial file.
        case body
        /// An error body, kept (up to ``errorBodyLimit``) for the error.
        case errorBody
        /// Not read: the next attempt starts at once, unless the download has used its attempts; why the response
        /// could not be used, for the error then.
        case restartWhenDone(String)
        /// Not read: the partial file is whole already (a 416 whose total equals it).
        case completeWhenDone
        /// Not read further: the download ends with this error (a response that cannot be trusted).
        case failWhenDone(FetchError)

        var isBody: Bool {
            if case .body = self {
                return true
            }
            return false
        }
    }

    private struct State {
        var phase = Phase.created
        var file: FileHandle?
        var bytes: Int64 = 0
        var total: Int64?
        var entityTag: String?
        var lastModified: String?
        var acceptsRanges = false
        var reception = Reception.nothing
        /// The offset past which the current response may not write: the end of its `Content-Range`, or the
        /// resource's length; `nil` when neither is known.
        var bodyLimit: Int64?
        /// The current attempt's response head.
        var head: Response?
        var errorBody = Data()
        var attemptStart: Int64 = 0
        var attempts = 0
        var attemptsWithoutProgress = 0
        /// The most bytes the partial file has held in this run: an attempt makes progress only when it gets past
        /// them, so that a server that drops each connection at the same byte, and answers each resumption in a way
        /// that starts the file over, is not tried for ever.
        var furthest: Int64 = 0
        /// The timer that ends the current attempt at the request's timeout.
        var deadline: (any DispatchSourceTimer)?
        /// The current attempt's timeout, once it has been reached.
        var timedOutAfter: TimeInterval?
        var lastSuccess: Response?
        /// The bytes of the last progress value queued, so that the final count is not reported twice.
        var reportedBytes: Int64 = -1

        var isFinished: Bool {
            if case .finished = phase {
                return true
            }
            return false
        }

        var canResume: Bool {
            acceptsRanges && (entityTag != nil || lastModified != nil)
        }
    }

    private enum Delivery {
        case progress(TransferProgress)
        case completion(Result<Response, any Error>)
    }

    /// The most bytes of an error body that a download keeps for its error parser: 1 MiB.
    static var errorBodyLimit: Int { 1 << 20 }

    /// How many times ``RetryPolicy/maximumAttempts`` a resumable download may make attempts in all, those that made
    /// progress and those that started over included.
    static var attemptBudgetFactor: Int { 10 }

    /// The most attempts a download makes in all: ``attemptBudgetFactor`` times its policy's
    /// ``RetryPolicy/maximumAttempts`` (at least one), or one for a download that is not resumed.
    static func attemptBudget(of resumption: DownloadResumption?) -> Int {
        guard let resumption else {
            return 1
        }
        let (budget, overflow) = max(1, resumption.retryPolicy.maximumAttempts).multipliedReportingOverflow(
            by: attemptBudgetFactor)
        return overflow ? Int.max : budget
    }

    let request: any Request
    private let pipeline: Pipeline
    private let destination: URL
    private let partial: URL
    /// `nil` for a download that is not resumed, which keeps no record.
    private let recordFile: URL?
    /// `nil` for a download that is not resumed: its partial file has a name of its own and goes when it fails.
    private let resumption: DownloadResumption?
    private let errorParser: (any ErrorParsing)?
    private let progress: @Sendable (TransferProgress) -> Void
    private let completion: @Sendable (Result<Response, any Error>) -> Void
    /// Where the answers are handled and the body is written and checked: a serial queue of its own gets a thread
    /// even when Dispatch's shared pool (which Swift's concurrency pool uses too) is busy, so that a slow pool
    /// neither holds the body in the stream's buffer nor delays its progress.
    private let queue = DispatchQueue(label: "Fetch.FileDownload", qos: .userInitiated)
    private let state = Locked(State())
    /// Who hears the events of every attempt: each attempt's call reports to them, so that an observer hears the
    /// whole download, its resumptions included.
    private let observers = EventObservers()
    private let outbox = Locked([Delivery]())
    /// Whether the completion has been handed over; held while a callback runs.
    private let delivery = Locked(false)

    init(
        request: any Request,
        pipeline: Pipeline,
        destination: URL,
        resumption: DownloadResumption?,
        errorParser: (any ErrorParsing)?,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) {
        self.request = request
        self.pipeline = pipeline
        self.destination = destination
        self.partial =
            resumption == nil
            ? destination.deletingLastPathComponent().appendingPathComponent(
                ".\(destination.lastPathComponent).\(UUID().uuidString).download")
            : DownloadResumption.partialFile(for: destination)
        self.recordFile = resumption == nil ? nil : DownloadResumption.recordFile(for: destination)
        self.resumption = resumption
        self.errorParser = errorParser
        self.progress = progress
        self.completion = completion
    }

    /// Opens the partial file, resuming what an earlier run left when it can be trusted, and starts the first
    /// attempt.
    func start() {
        if let problem = DownloadDestination.problem(with: destination, for: request) {
            fail(problem)
            return
        }
        let found: PartialDownloadRecord.Found
        do {
            found =
                try recordFile.map {
                    try PartialDownloadRecord.find(partial: partial, recordFile: $0, url: request.url.absoluteString)
                } ?? .nothing
        } catch {
            fail(fileProblem(error))
            return
        }
        let opened = state.withLock { state -> Result<Void, any Error> in
            guard case .created = state.phase else {
                return .success(())
            }
            return Result {
                switch found {
                case .nothing:
                    break
                case .usable(let record, let bytes):
                    state.bytes = bytes
                    state.furthest = bytes
                    state.total = record.total
                    state.entityTag = record.entityTag
                    state.lastModified = record.lastModified
                    state.acceptsRanges = true
                    send(.progress(makeProgress(&state, event: .resuming)))
                case .unusable:
                    try DownloadResumption.removePartialFiles(for: destination)
                    send(.progress(makeProgress(&state, event: .restarting(.unusablePartialFile))))
                }
                let file: FileHandle
                do {
                    file = try OwnerOnlyFile.openForUpdating(partial)
                } catch {
                    throw fileProblem(error)
                }
                // Truncated only when its length is not the bytes kept (never, for a new file): on ext4
                // (`auto_da_alloc`), truncating a file to zero, even a new empty one, makes its close send the whole
                // body to the disk at once, and removing the finished file then waits for that write: about 2 ms of a
                // 1.2 MB download here.
                let kept = UInt64(clamping: state.bytes)
                if try file.seekToEnd() != kept {
                    try file.truncate(atOffset: kept)
                    try file.seekToEnd()
                }
                state.file = file
            }
        }
        flush()
        switch opened {
        case .success:
            startAttempt()
        case .failure(let error):
            fail(error)
        }
    }

    func cancel() {
        fail(FetchError.cancelled(request: request))
    }

    /// Ends the download with `error`, keeping a resumable download's partial file for a later run, unless it has
    /// ended.
    private func fail(_ error: any Error) {
        let previous = state.withLock { state -> Phase? in
            guard !state.isFinished else {
                return nil
            }
            let previous = state.phase
            state.phase = .finished
            state.deadline?.cancel()
            state.deadline = nil
            closeFile(&state)
            saveRecord(state)
            send(.completion(.failure(error)))
            return previous
        }
        switch previous {
        case .running(let attempt):
            attempt.cancel()
        case .waiting(let wait):
            wait?.cancel()
        case .created, .finishing, .finished, .none:
            break
        }
        if previous != nil, resumption == nil {
            removePlainPartialFile()
        }
        flush()
    }

    // MARK: - Attempts

    private func startAttempt() {
        let attempt = state.withLock { state -> Attempt? in
            switch state.phase {
            case .created, .waiting:
                break
            case .running, .finishing, .finished:
                return nil
            }
            var range: (String, String)?
            if state.bytes > 0, state.canResume, let validator = state.entityTag ?? state.lastModified {
                range = ("bytes=\(state.bytes)-", validator)
            }
            state.reception = .nothing
            state.bodyLimit = nil
            state.head = nil
            state.errorBody = Data()
            state.attemptStart = state.bytes
            state.attempts += 1
            state.timedOutAfter = nil
            // A request for the whole resource is the caller's own, so that a middleware or a double that looks for
            // its type finds it.
            let attempt = Attempt(
                request: range.map { AttemptRequest(base: request, range: $0) } ?? request,
                resumesAt: range == nil ? nil : state.bytes)
            state.phase = .running(attempt)
            if let timeout = request.timeout, timeout > 0, timeout.isFinite {
                // The handler keeps the download alive until the timer fires or is cancelled, which ending does.
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now() + timeout)
                timer.setEventHandler { [self] in attemptTimedOut(attempt, after: timeout) }
                state.deadline = timer
                timer.resume()
            }
            return attempt
        }
        guard let attempt else {
            return
        }
        if let offset = attempt.resumesAt {
            observers.announce(.transferResumed(request, offset: offset))
        }
        let call = pipeline.startStream(
            attempt.request, naming: request, maximumBufferSize: ResponseStream.defaultBufferLimit,
            observers: observers
        ) { [self] answer in
            // Off the transport's thread (libcurl's event loop, say): the answer may write files or start the next
            // attempt.
            self.queue.async { self.received(answer, for: attempt) }
        }
        attempt.track(call)
    }

    /// Ends an attempt that is still running at its request's timeout, however steadily its body keeps coming: the
    /// attempt fails with ``FetchError/timedOut(request:seconds:)``, which the retry policy decides on.
    private func attemptTimedOut(_ attempt: Attempt, after timeout: TimeInterval) {
        let isCurrent = state.withLock { state -> Bool in
            guard case .running(let current) = state.phase, current === attempt else {
                return false
            }
            state.timedOutAfter = timeout
            return true
        }
        if isCurrent {
            attempt.cancel()
            attemptEnded(attempt, error: FetchError.cancelled(request: request))
        }
    }

    /// Handles the pipeline's answer to an attempt: a head to read the body of, or the failure.
    private func received(_ answer: Result<Response, any Error>, for attempt: Attempt) {
        switch answer {
        case .success(let response):
            receivedHead(response, for: attempt)
        case .failure(let error) where error.isUnacceptableStatus:
            // A middleware gave up on a status (a retry that ran out of attempts): its error body goes to the
            // error parser, as `perform`'s would.
            Task {
                let answer = await Pipeline.readingErrorBodies(of: answer, upTo: Self.errorBodyLimit)
                let isCurrent = state.withLock { state -> Bool in
                    guard case .running(let current) = state.phase, current === attempt else {
                        return false
                    }
                    state.deadline?.cancel()
                    state.deadline = nil
                    return true
                }
                if isCurrent {
                    end(
                        Pipeline.parse(answer, as: SuccessfulResponse.self, for: request, errorParser: errorParser)
                            .map(\.response), keepsPartial: false)
                }
            }
        case .failure(let error):
            attemptEnded(attempt, error: error)
        }
    }

    /// Decides from the head what the body is for, then reads it (or not) and ends the attempt.
    private func receivedHead(_ response: Response, for attempt: Attempt) {
        let reads = state.withLock { state -> Bool in
            guard case .running(let current) = state.phase, current === attempt else {
                return false
            }
            state.head = response
            decide(response, rangeSent: attempt.request is AttemptRequest, &state)
            switch state.reception {
            case .body, .errorBody: return true
            case .nothing, .restartWhenDone, .completeWhenDone, .failWhenDone: return false
            }
        }
        flush()
        let stream = response.streamedBody?.stream ?? ResponseStream(whole: response)
        guard reads else {
            stream.cancel()
            attemptEnded(attempt, error: nil)
            return
        }
        attempt.track(stream: stream)
        // Read on the download's own queue rather than in a task: the body keeps being written, and the progress
        // keeps coming in time, however busy Swift's concurrency pool is.
        stream.read(on: queue) { [self] chunk in
            receive(chunk, for: attempt)
        } end: { [self] failure in
            stream.cancel()
            attemptEnded(attempt, error: failure)
        }
    }

    /// What the body of `response` is for (called with `state`'s lock held).
    private func decide(_ response: Response, rangeSent: Bool, _ state: inout State) {
        let range = response.headers["Content-Range"].flatMap(ContentRange.init)
        let length = response.headers["Content-Length"].flatMap(WireNumber.byteCount)
        switch response.status {
        case 206 where rangeSent:
            let shown = response.headers["Content-Range"] ?? "missing"
            guard let range,
                let end = range.bodyEnd(continuing: state.bytes, contentLength: nil, knownTotal: state.total)
            else {
                // A range other than the one asked for: the server's ranges cannot be trusted.
                state.acceptsRanges = false
                restartFile(&state, reason: .rangesNotSupported)
                state.reception = .restartWhenDone(
                    "its 206 Partial Content (Content-Range \(shown)) is not the range asked for")
                return
            }
            guard Self.hasValidator(of: state, response) else {
                // The server ignored If-Range and answers with another version (or says nothing of which):
                // appending would splice two versions. The next attempt asks for the whole resource.
                state.acceptsRanges = false
                restartFile(&state, reason: .resourceChanged)
                state.reception = .restartWhenDone("its 206 Partial Content is of another version")
                return
            }
            if let length, length != end - state.bytes {
                // A 206 that announces more (or fewer) bytes than its own range holds: which bytes are the range's
                // cannot be told, and none is appended.
                state.reception = .failWhenDone(
                    integrityError(
                        "the server's 206 Partial Content announces \(length) bytes (Content-Length) for the"
                            + " \(end - state.bytes) of its Content-Range \(shown)"))
                return
            }
            state.total = range.total ?? state.total
            state.bodyLimit = end
            state.lastSuccess = response
            state.reception = .body
            saveRecord(state)
        case 206:
            // Partial content of a request that asked for the whole: which part it is cannot be trusted.
            state.reception = .failWhenDone(
                integrityError(
                    "the server answered 206 Partial Content (Content-Range"
                        + " \(response.headers["Content-Range"] ?? "missing")) to a request for"
                        + " the whole resource"))
        case 416 where rangeSent:
            if let total = range?.total, total == state.bytes {
                state.total = total
                state.reception = .completeWhenDone
            } else {
                restartFile(&state, reason: .rangeNotSatisfiable)
                state.reception = .restartWhenDone(
                    "its 416 Range Not Satisfiable (Content-Range \(response.headers["Content-Range"] ?? "missing"))"
                        + " says the file kept is not the whole resource")
            }
        case 200..<300:
            if state.bytes > 0 {
                restartFile(&state, reason: .resourceChanged)
            }
            // Only a strong validator may resume (RFC 9110 §13.1.5): bytes of two versions that a weak one cannot
            // tell apart would be spliced into one file.
            state.entityTag = Self.strongEntityTag(of: response)
            state.lastModified = state.entityTag == nil ? Self.strongLastModified(of: response) : nil
            state.acceptsRanges =
                response.headers["Accept-Ranges"]?.lowercased()
                .split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "bytes" } ?? false
            state.total = length
            state.bodyLimit = length
            state.lastSuccess = response
            state.reception = .body
            if state.canResume {
                saveRecord(state)
            } else {
                removeRecord()
            }
        default:
            state.reception = .errorBody
        }
    }

    /// Writes one chunk of the body, or keeps it for the error; returns whether to read on.
    private func receive(_ data: Data, for attempt: Attempt) -> Bool {
        let outcome = state.withLock { state -> Result<Bool, any Error> in
            guard case .running(let current) = state.phase, current === attempt else {
                return .success(false)
            }
            switch state.reception {
            case .body:
                let (after, overflow) = state.bytes.addingReportingOverflow(Int64(data.count))
                if let limit = state.bodyLimit, overflow || after > limit {
                    // Nothing more is written, and the partial file goes: the server's lengths cannot be trusted.
                    state.reception = .failWhenDone(
                        integrityError(
                            "the server sent more than the \(limit) bytes it announced (Content-Length, Content-Range)"
                        ))
                    return .success(false)
                }
                guard !data.isEmpty else {
                    return .success(true)
                }
                do {
                    try state.file?.write(contentsOf: data)
                } catch {
                    return .failure(error)
                }
                state.bytes = after
                send(.progress(makeProgress(&state, event: nil)))
                return .success(true)
            case .errorBody:
                state.errorBody.append(data.prefix(max(0, Self.errorBodyLimit - state.errorBody.count)))
                return .success(state.errorBody.count < Self.errorBodyLimit)
            case .nothing, .restartWhenDone, .completeWhenDone, .failWhenDone:
                return .success(false)
            }
        }
        flush()
        switch outcome {
        case .success(let readsOn):
            return readsOn
        case .failure(let error):
            fail(error)
            return false
        }
    }

    /// After an attempt that failed with `failure`: what follows.
    private enum Next {
        case nothing
        case attemptNow
        case attemptAfter(TimeInterval)
        case finish
        case end(Result<Response, any Error>, keepsPartial: Bool)
    }

    /// Decides what follows the end of `attempt`'s body (`error` when it failed): another attempt, at once or
    /// after a wait, or the end.
    private func attemptEnded(_ attempt: Attempt, error: (any Error)?) {
        /// After an attempt that failed with `failure`: the next attempt after its wait, or the end, keeping the
        /// partial file, with `failure` itself after one attempt and ``FetchError/attemptsExhausted`` after more.
        func retryOrEnd(_ failure: any Error, _ state: inout State) -> Next {
            if let wait = retryDelay(after: .failure(failure), state: &state) {
                return .attemptAfter(wait)
            }
            let attempts = state.attempts
            return .end(
                .failure(attempts > 1 ? FetchError.attemptsExhausted(attempts: attempts, lastError: failure) : failure),
                keepsPartial: true)
        }
        let next = state.withLock { state -> Next in
            guard case .running(let current) = state.phase, current === attempt else {
                return .nothing
            }
            state.deadline?.cancel()
            state.deadline = nil
            if let timeout = state.timedOutAfter {
                return retryOrEnd(FetchError.timedOut(request: request, seconds: timeout), &state)
            }
            if case .timedOut(_, nil) = error?.fetchKind, let timeout = request.timeout {
                // The transport's own timer, set to the same timeout, fired first.
                return retryOrEnd(FetchError.timedOut(request: request, seconds: timeout), &state)
            }
            switch state.reception {
            case .restartWhenDone(let reason):
                guard state.attempts < Self.attemptBudget(of: resumption) else {
                    let failure = integrityError("the server cannot be resumed from: \(reason)")
                    return .end(
                        .failure(FetchError.attemptsExhausted(attempts: state.attempts, lastError: failure)),
                        keepsPartial: false)
                }
                state.phase = .waiting(nil)
                return .attemptNow
            case .completeWhenDone:
                return .finish
            case .failWhenDone(let failure):
                return .end(.failure(failure), keepsPartial: false)
            case .body where error == nil:
                if let total = state.total, state.bytes != total {
                    guard state.bytes < total else {
                        return .end(
                            .failure(integrityError("it has \(state.bytes) bytes, not \(total)")), keepsPartial: false)
                    }
                    let lost = FetchError.transport(URLError(.networkConnectionLost), request: request)
                    return retryDelay(after: .failure(lost), state: &state).map(Next.attemptAfter)
                        ?? .end(.failure(lost), keepsPartial: true)
                }
                return .finish
            case .errorBody where error == nil:
                let outcome = Result<Response, any Error>.success(
                    (state.head ?? Response(status: 0, originalRequest: request)).withBody(state.errorBody))
                if let wait = retryDelay(after: outcome, state: &state) {
                    return .attemptAfter(wait)
                }
                return .end(
                    Pipeline.parse(outcome, as: SuccessfulResponse.self, for: request, errorParser: errorParser)
                        .map(\.response),
                    keepsPartial: false)
            case .nothing, .body, .errorBody:
                return retryOrEnd(Self.transportError(error, midBody: state.reception.isBody), &state)
            }
        }
        flush()
        switch next {
        case .nothing:
            break
        case .attemptNow:
            startAttempt()
        case .attemptAfter(let delay):
            wait(delay)
        case .finish:
            finish()
        case .end(let result, let keepsPartial):
            end(result, keepsPartial: keepsPartial)
        }
    }

    /// Whether to try again after an attempt that ended with `outcome` (a response whose body was an error, or a
    /// failure), and after how long; moves the download to waiting when it does.
    private func retryDelay(after outcome: Result<Response, any Error>, state: inout State) -> TimeInterval? {
        guard let resumption else {
            return nil
        }
        // Bytes that the next attempt cannot keep (the server cannot resume), or that an earlier attempt of this run
        // had already got to, are no progress: a server that never finishes its body is not tried for ever.
        let madeProgress = state.bytes > state.attemptStart && state.bytes > state.furthest && state.canResume
        state.furthest = max(state.furthest, state.bytes)
        state.attemptsWithoutProgress = madeProgress ? 1 : state.attemptsWithoutProgress + 1
        guard state.attempts < Self.attemptBudget(of: resumption) else {
            return nil
        }
        let decision = resumption.retryPolicy.decide(
            after: outcome,
            method: request.method,
            attempt: state.attemptsWithoutProgress,
            now: resumption.scheduler.now,
            random: Double.random(in: 0...1)
        )
        guard case .retry(let wait, _) = decision else {
            return nil
        }
        if state.bytes > 0 {
            if state.canResume {
                saveRecord(state)
                send(.progress(makeProgress(&state, event: .resuming)))
            } else {
                let reason: TransferProgress.RestartReason = state.acceptsRanges ? .noValidator : .rangesNotSupported
                restartFile(&state, reason: reason)
            }
        }
        state.phase = .waiting(nil)
        return wait
    }

    private func wait(_ delay: TimeInterval) {
        guard let resumption else {
            return
        }
        let scheduled = resumption.scheduler.schedule(after: delay) { [self] in startAttempt() }
        state.withLock { state in
            if case .waiting(nil) = state.phase {
                state.phase = .waiting(scheduled)
            }
        }
    }

    /// The error of an attempt that failed: a connection lost mid-body is `networkConnectionLost`, which the retry
    /// policy knows, even where swift-corelibs-foundation reports it as an unknown error (libcurl's "transfer closed
    /// with N bytes remaining to read").
    private static func transportError(_ error: (any Error)?, midBody: Bool) -> any Error {
        guard let error else {
            return FetchError.transport(URLError(.networkConnectionLost))
        }
        var urlError = error as? URLError
        if case .transport(let wrapped, _) = error.fetchKind {
            urlError = wrapped
        }
        if midBody, let urlError, urlError.code == .unknown {
            var userInfo: [String: Any] = [
                NSLocalizedDescriptionKey: urlError.localizedDescription, NSUnderlyingErrorKey: urlError,
            ]
            userInfo[NSURLErrorFailingURLErrorKey] = urlError.failingURL
            return FetchError.transport(URLError(.networkConnectionLost, userInfo: userInfo))
        }
        return Exchange.transportError(error)
    }

    // MARK: - Finishing

    /// Checks the whole body and moves it into place, off the thread that read it: hashing a large file takes a
    /// while.
    private func finish() {
        let checked = state.withLock { state -> (total: Int64?, response: Response)? in
            guard case .running = state.phase else {
                return nil
            }
            state.phase = .finishing
            closeFile(&state)
            saveRecord(state)
            // Without a 2xx in this run (the bytes an earlier run kept were the whole resource, which a 416 said),
            // the download's answer is a plain 200.
            let response =
                state.lastSuccess.map { $0.answering(request).withBody(nil) }
                ?? Response(status: 200, headers: [:], data: nil, originalRequest: request, url: request.url)
            return (state.total, response)
        }
        guard let checked else {
            return
        }
        queue.async { [self] in
            let result = Result { try verifyAndMove(total: checked.total) }.flatMap {
                bytes -> Result<Response, any Error> in
                state.withLock { state in
                    if state.reportedBytes != bytes {
                        state.reportedBytes = bytes
                        send(.progress(TransferProgress(completedBytes: bytes, expectedBytes: checked.total ?? bytes)))
                    }
                }
                return checked.response.requireSuccess(errorParser: errorParser)
            }
            var keepsPartial = true
            if case .failure(let error as FetchError) = result {
                keepsPartial = error.code != .integrityCheckFailed && error.code != .invalidRequest
            }
            end(result, keepsPartial: keepsPartial)
        }
    }

    /// Checks the partial file's length and digest, then moves it to the destination; returns its length.
    private func verifyAndMove(total: Int64?) throws -> Int64 {
        guard let size = PartialDownloadRecord.fileSize(partial) else {
            throw integrityError("the partial file \(partial.path) cannot be read")
        }
        if let total, size != total {
            throw integrityError("it has \(size) bytes, not the \(total) the server announced")
        }
        if let expected = resumption?.expectedSHA256 {
            let digest = try SHA256.hexDigest(ofFile: partial)
            guard digest == expected.lowercased() else {
                throw integrityError("its SHA-256 is \(digest), not \(expected.lowercased())")
            }
        }
        let isCancelled = state.withLock { state in state.isFinished }
        guard !isCancelled else {
            throw FetchError.cancelled(request: request)
        }
        // One rename in the destination's folder: a regular file there is replaced in one step, and a directory or
        // a symbolic link that appeared there since the start is refused, never removed or followed.
        do {
            try OwnerOnlyFile.moveIntoPlace(partial, over: destination)
        } catch {
            throw destinationProblem(error)
        }
        removeRecord()
        return size
    }

    private func end(_ result: Result<Response, any Error>, keepsPartial: Bool) {
        let ended = state.withLock { state -> Bool in
            guard !state.isFinished else {
                return false
            }
            state.phase = .finished
            state.deadline?.cancel()
            state.deadline = nil
            closeFile(&state)
            send(.completion(result))
            return true
        }
        if ended, case .failure = result {
            if resumption == nil {
                removePlainPartialFile()
            } else if !keepsPartial {
                // Best effort: a partial file that is wrong or belongs to a gone resource is only worth removing.
                try? DownloadResumption.removePartialFiles(for: destination)
            }
        }
        flush()
    }

    /// The download's error for a body that fails a check, naming the request (its method and URL).
    private func integrityError(_ reason: String) -> FetchError {
        .integrityCheckFailed(url: request.url, reason: reason, request: request)
    }

    /// A partial file or record that cannot be used safely (a symbolic link, not a regular file), as the error of
    /// this download; the file system's own errors as they are.
    private func fileProblem(_ error: any Error) -> any Error {
        switch error as? OwnerOnlyFile.Failure {
        case .symbolicLink, .notRegularFile:
            FetchError.invalidRequest(
                "\(request.method) \(request.url.absoluteString): cannot download to \(destination.path):"
                    + " \(ErrorText.describe(error)); it is left as it is")
        case .system, nil:
            error
        }
    }

    /// A destination that cannot take the finished file (it became a directory or a symbolic link while the body
    /// came), as the error of this download.
    private func destinationProblem(_ error: any Error) -> any Error {
        FetchError.invalidRequest(
            "\(request.method) \(request.url.absoluteString): cannot move the downloaded file to \(destination.path):"
                + " \(ErrorText.describe(error)); it is left as it is")
    }

    /// Whether a `206` comes from the version whose bytes the partial file holds: its strong `ETag` is the one
    /// recorded, or, when only a `Last-Modified` was recorded, its `Last-Modified` is that one. A `206` without the
    /// validator does not say which version it is, and is not trusted.
    private static func hasValidator(of state: State, _ response: Response) -> Bool {
        if let entityTag = state.entityTag {
            return strongEntityTag(of: response) == entityTag
        }
        if let lastModified = state.lastModified {
            return response.headers["Last-Modified"] == lastModified
        }
        return false
    }

    /// The response's `ETag` when it is strong (RFC 9110 §8.8.3): a quoted opaque tag without `W/`.
    static func strongEntityTag(of response: Response) -> String? {
        guard let tag = response.headers["ETag"]?.trimmingCharacters(in: .whitespaces), tag.count >= 2,
            tag.hasPrefix("\""), tag.hasSuffix("\"")
        else {
            return nil
        }
        return tag
    }

    /// The response's `Last-Modified` when it is a strong validator (RFC 9110 §8.8.2.2): it and the response's
    /// `Date` both parse, and it is at least one second earlier than that `Date`, so that the resource cannot have
    /// changed again within the second it names. Without a `Date`, or with one no later than it, it is weak.
    static func strongLastModified(of response: Response) -> String? {
        guard let text = response.headers["Last-Modified"], let modified = HTTPDate.date(from: text),
            let sent = response.headers["Date"].flatMap(HTTPDate.date(from:)),
            sent.timeIntervalSince(modified) >= 1
        else {
            return nil
        }
        return text
    }

    // MARK: - The partial file (called with `state`'s lock held)

    /// Empties the partial file and announces that the download starts over.
    private func restartFile(_ state: inout State, reason: TransferProgress.RestartReason) {
        do {
            try state.file?.truncate(atOffset: 0)
        } catch {
            // The next write fails too and ends the download with the file system's error.
        }
        state.bytes = 0
        state.attemptStart = 0
        removeRecord()
        send(.progress(makeProgress(&state, event: .restarting(reason))))
    }

    private func saveRecord(_ state: State) {
        guard let recordFile, state.canResume else {
            return
        }
        let record = PartialDownloadRecord(
            url: request.url.absoluteString,
            entityTag: state.entityTag,
            lastModified: state.lastModified,
            bytes: state.bytes,
            total: state.total
        )
        // Best effort: without its record, a partial file is started over by the next run, never misused.
        try? record.save(to: recordFile)
    }

    private func removeRecord() {
        guard let recordFile else {
            return
        }
        // Best effort, and never a directory: without its partial file, a record is not used.
        try? OwnerOnlyFile.remove(recordFile)
    }

    private func closeFile(_ state: inout State) {
        try? state.file?.close()  // every write went to the file already: nothing is lost
        state.file = nil
    }

    /// Deletes the partial file of a download that is not resumed and failed: no later run can use it.
    private func removePlainPartialFile() {
        try? OwnerOnlyFile.remove(partial)  // fails only when something else, which is not Fetch's, is there
    }

    // MARK: - Delivery

    /// The progress value for the bytes in the partial file now. Values are made and queued under `state`'s lock,
    /// in the order of the events they count, so they are monotonic between restarts by construction.
    private func makeProgress(_ state: inout State, event: TransferProgress.Event?) -> TransferProgress {
        state.reportedBytes = state.bytes
        return TransferProgress(completedBytes: state.bytes, expectedBytes: state.total, event: event)
    }

    /// Queues `item` behind the ones before it; ``flush()`` hands it over.
    private func send(_ item: Delivery) {
        outbox.withLock { $0.append(item) }
    }

    /// Hands the queued items over, in order.
    private func flush() {
        let count = outbox.withLock { $0.count }
        for _ in 0..<count {
            deliverNext()
        }
    }

    private func deliverNext() {
        delivery.withLock { completed in
            guard let item = outbox.withLock({ $0.isEmpty ? nil : $0.removeFirst() }), !completed else {
                return
            }
            switch item {
            case .progress(let value):
                progress(value)
            case .completion(let result):
                completed = true
                completion(result)
            }
        }
    }
}

extension FileDownload {
    /// One attempt: its pipeline call until the head arrives, then the body's stream.
    ///
    /// `@unchecked Sendable`: its mutable state is in `handles`, behind its lock.
    fileprivate final class Attempt: CancellableCall, @unchecked Sendable {
        private struct Handles {
            var isCancelled = false
            var call: (any CancellableCall)?
            var stream: ResponseStream?
        }

        /// The request sent: the caller's, or an ``AttemptRequest`` asking for the rest.
        let request: any Request
        /// The byte the attempt goes on from when it resumes; `nil` when it asks for the whole resource.
        let resumesAt: Int64?
        private let handles = Locked(Handles())

        init(request: any Request, resumesAt: Int64?) {
            self.request = request
            self.resumesAt = resumesAt
        }

        /// Keeps the pipeline call to cancel with the attempt; cancels it at once if the attempt was cancelled.
        func track(_ call: any CancellableCall) {
            let cancelled = handles.withLock { handles in
                handles.call = call
                return handles.isCancelled
            }
            if cancelled {
                call.cancel()
            }
        }

        /// Keeps the body's stream to cancel with the attempt.
        func track(stream: ResponseStream) {
            let cancelled = handles.withLock { handles in
                handles.stream = stream
                return handles.isCancelled
            }
            if cancelled {
                stream.cancel()
            }
        }

        func cancel() {
            let (call, stream) = handles.withLock { handles in
                handles.isCancelled = true
                return (handles.call, handles.stream)
            }
            call?.cancel()
            stream?.cancel()
        }
    }

    /// The request of an attempt that resumes: the caller's, with `Range` and `If-Range`, so that the middlewares
    /// see (and sign) what is sent.
    fileprivate struct AttemptRequest: Request {
        let base: any Request
        /// `Range` and `If-Range`.
        let range: (value: String, ifRange: String)

        init(base: any Request, range: (String, String)) {
            self.base = base
            self.range = (value: range.0, ifRange: range.1)
        }

        var url: URL { base.url }
        var method: HTTPMethod { base.method }
        var body: Data? { base.body }
        var timeout: TimeInterval? { base.timeout }
        var maximumResponseSize: Int? { base.maximumResponseSize }

        var headers: HeaderFields {
            base.headers.setting("Range", to: range.value).setting("If-Range", to: range.ifRange)
        }

        func makeURLRequest() throws -> URLRequest {
            var urlRequest = try base.makeURLRequest()
            urlRequest.setValue(range.value, forHTTPHeaderField: "Range")
            urlRequest.setValue(range.ifRange, forHTTPHeaderField: "If-Range")
            return urlRequest
        }
    }
}

/// A response that parses only when its status is 2xx: otherwise the error parser's error, or
/// ``FetchError/unacceptableStatus(_:)`` with the body.
struct SuccessfulResponse: Parsable {
    let response: Response

    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<SuccessfulResponse, any Error> {
        response.requireSuccess(errorParser: errorParser).map(SuccessfulResponse.init)
    }
}
