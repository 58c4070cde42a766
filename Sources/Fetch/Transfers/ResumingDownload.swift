import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One resumable download: a data task per attempt, whose body it writes to the partial file itself, and the
/// decisions between attempts (resume, start over, wait, give up) that ``DownloadResumption`` describes.
///
/// Everything mutable is in `state`, behind its lock, the partial file's handle included: the delegate's calls, a
/// cancellation and the scheduler's timer may come from different threads. Progress values and the completion go
/// through `outbox` in the order they were made, under `state`'s lock, and are handed over one at a time under
/// `delivery`'s lock, so that even a concurrent callback queue sees them in order, and nothing after the completion.
final class ResumingDownload: TransferTracking, Cancellable {
    /// Makes and registers the data task for one attempt, without resuming it.
    typealias TaskFactory = @Sendable (URLRequest, ResumingDownload) -> URLSessionTask

    private enum Phase {
        case created
        case running(URLSessionTask)
        /// Between attempts; the handle is `nil` for the moment between deciding to wait and scheduling the wait.
        case waiting((any Cancellable)?)
        /// The body is whole and being checked and moved off the delegate's queue.
        case finishing
        case finished
    }

    /// What the current response's body is for.
    private enum Reception: Equatable {
        case nothing
        /// Bytes of the resource, appended to the partial file.
        case body
        /// An error body, kept (up to a limit) for the error.
        case errorBody
        /// Ignored: the next attempt starts at once when this one ends.
        case restartWhenDone
        /// Ignored: the partial file is whole already (a 416 whose total equals it).
        case completeWhenDone
        /// Ignored: the download ends with this error when the task does (a response that cannot be trusted).
        case failWhenDone(FetchError)

        static func == (lhs: Reception, rhs: Reception) -> Bool {
            switch (lhs, rhs) {
            case (.nothing, .nothing), (.body, .body), (.errorBody, .errorBody), (.restartWhenDone, .restartWhenDone),
                (.completeWhenDone, .completeWhenDone), (.failWhenDone, .failWhenDone):
                true
            default:
                false
            }
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
        var errorBody = Data()
        var attemptStart: Int64 = 0
        var attempts = 0
        var attemptsWithoutProgress = 0
        /// The timer that ends the current attempt at the request's timeout.
        var deadline: (any DispatchSourceTimer)?
        /// The current attempt's timeout, once it has been reached.
        var timedOutAfter: TimeInterval?
        var lastSuccess: HTTPURLResponse?
        var redirects: RedirectTracker

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

    let request: any Request
    private let destination: URL
    private let partial: URL
    private let recordFile: URL
    private let resumption: DownloadResumption
    private let redirectPolicy: RedirectPolicy
    private let defaultTimeout: TimeInterval?
    private let queue: OperationQueue?
    private let progress: @Sendable (TransferProgress) -> Void
    private let parse: @Sendable (Response) -> Result<Response, any Error>
    private let completion: @Sendable (Result<Response, any Error>) -> Void
    private let makeTask: TaskFactory
    private let state: Locked<State>
    private let outbox = Locked([Delivery]())
    /// Whether the completion has been handed over; held while a callback runs.
    private let delivery = Locked(false)

    init(
        request: any Request,
        destination: URL,
        resumption: DownloadResumption,
        redirectPolicy: RedirectPolicy,
        defaultTimeout: TimeInterval?,
        queue: OperationQueue?,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        parse: @escaping @Sendable (Response) -> Result<Response, any Error>,
        completion: @escaping @Sendable (Result<Response, any Error>) -> Void,
        makeTask: @escaping TaskFactory
    ) {
        self.request = request
        self.destination = destination
        self.partial = DownloadResumption.partialFile(for: destination)
        self.recordFile = DownloadResumption.recordFile(for: destination)
        self.resumption = resumption
        self.redirectPolicy = redirectPolicy
        self.defaultTimeout = defaultTimeout
        self.queue = queue
        self.progress = progress
        self.parse = parse
        self.completion = completion
        self.makeTask = makeTask
        self.state = Locked(State(redirects: RedirectTracker(originalURL: request.url)))
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
            found = try PartialDownloadRecord.find(
                partial: partial, recordFile: recordFile, url: request.url.absoluteString)
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
                    state.total = record.total
                    state.entityTag = record.entityTag
                    state.lastModified = record.lastModified
                    state.acceptsRanges = true
                    send(.progress(makeProgress(state, event: .resuming)))
                case .unusable:
                    try DownloadResumption.removePartialFiles(for: destination)
                    send(.progress(makeProgress(state, event: .restarting(.unusablePartialFile))))
                }
                let file: FileHandle
                do {
                    file = try OwnerOnlyFile.openForUpdating(partial)
                } catch {
                    throw fileProblem(error)
                }
                try file.truncate(atOffset: UInt64(clamping: state.bytes))
                try file.seekToEnd()
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

    func newBodyStream() -> InputStream? {
        Exchange.newBodyStream(for: request)
    }

    func cancel() {
        fail(FetchError.cancelled())
    }

    /// Ends the download with `error`, keeping the partial file for a later run, unless it has ended.
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
        case .running(let task):
            task.cancel()
        case .waiting(let wait):
            wait?.cancel()
        case .created, .finishing, .finished, .none:
            break
        }
        flush()
    }

    // MARK: - Attempts

    private func startAttempt() {
        let built = Exchange.makeURLRequest(for: request, defaultTimeout: defaultTimeout)
        guard case .success(var urlRequest) = built else {
            if case .failure(let error) = built {
                fail(error)
            }
            return
        }
        let task = state.withLock { state -> URLSessionTask? in
            switch state.phase {
            case .created, .waiting:
                break
            case .running, .finishing, .finished:
                return nil
            }
            if state.bytes > 0, state.canResume {
                urlRequest.setValue("bytes=\(state.bytes)-", forHTTPHeaderField: "Range")
                urlRequest.setValue(state.entityTag ?? state.lastModified, forHTTPHeaderField: "If-Range")
            }
            state.reception = .nothing
            state.bodyLimit = nil
            state.errorBody = Data()
            state.attemptStart = state.bytes
            state.attempts += 1
            state.redirects = RedirectTracker(originalURL: request.url)
            state.timedOutAfter = nil
            let timeout = TransferState<Response>.deadline(of: request, adjusting: &urlRequest)
            let task = makeTask(urlRequest, self)
            state.phase = .running(task)
            if let timeout {
                let timer = TransferState<Response>.timer(after: timeout) { [self] in
                    attemptTimedOut(task, after: timeout)
                }
                state.deadline = timer
                timer.resume()
            }
            return task
        }
        task?.resume()
    }

    /// Ends an attempt that is still running at its request's timeout, however steadily its body keeps coming: the
    /// attempt fails with ``FetchError/timedOut(request:seconds:)``, which the retry policy decides on.
    private func attemptTimedOut(_ task: URLSessionTask, after timeout: TimeInterval) {
        let isCurrent = state.withLock { state -> Bool in
            guard case .running(let current) = state.phase, current === task else {
                return false
            }
            state.timedOutAfter = timeout
            return true
        }
        if isCurrent {
            task.cancel()
        }
    }

    /// Decides what follows an attempt that ended with `outcome` (a response whose body was an error, or a
    /// transport failure): another attempt after a wait, or the end.
    private func attemptEnded(_ outcome: Result<Response, any Error>, state: inout State) -> TimeInterval? {
        // Bytes that the next attempt cannot keep (the server cannot resume) are no progress: a server that never
        // finishes its body is not tried for ever.
        let madeProgress = state.bytes > state.attemptStart && state.canResume
        state.attemptsWithoutProgress = madeProgress ? 1 : state.attemptsWithoutProgress + 1
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
                send(.progress(makeProgress(state, event: .resuming)))
            } else {
                let reason: TransferProgress.RestartReason = state.acceptsRanges ? .noValidator : .rangesNotSupported
                restartFile(&state, reason: reason)
            }
        }
        state.phase = .waiting(nil)
        return wait
    }

    private func wait(_ delay: TimeInterval) {
        let scheduled = resumption.scheduler.schedule(after: delay) { [self] in startAttempt() }
        state.withLock { state in
            if case .waiting(nil) = state.phase {
                state.phase = .waiting(scheduled)
            }
        }
    }

    // MARK: - TransferTracking

    func didTransfer(_ completed: Int64, of expected: Int64) {}

    func didFinishDownloading(_ task: URLSessionTask, to location: URL) {}

    func didReceive(_ response: URLResponse, for task: URLSessionTask) -> URLSession.ResponseDisposition {
        let disposition = state.withLock { state -> URLSession.ResponseDisposition in
            guard case .running(let current) = state.phase, current === task else {
                return .cancel
            }
            guard let response = response as? HTTPURLResponse else {
                state.reception = .errorBody
                return .allow
            }
            let rangeSent = task.originalRequest?.value(forHTTPHeaderField: "Range") != nil
            let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init)
            let length = response.value(forHTTPHeaderField: "Content-Length").flatMap(WireNumber.byteCount)
            switch response.statusCode {
            case 206 where rangeSent:
                guard let range,
                    let end = range.bodyEnd(continuing: state.bytes, contentLength: length, knownTotal: state.total)
                else {
                    // A range other than the one asked for: the server's ranges cannot be trusted.
                    state.acceptsRanges = false
                    restartFile(&state, reason: .rangesNotSupported)
                    state.reception = .restartWhenDone
                    return .cancel
                }
                guard Self.hasValidator(of: state, response) else {
                    // The server ignored If-Range and answers with another version (or says nothing of which):
                    // appending would splice two versions. The next attempt asks for the whole resource.
                    state.acceptsRanges = false
                    restartFile(&state, reason: .resourceChanged)
                    state.reception = .restartWhenDone
                    return .cancel
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
                            + " \(response.value(forHTTPHeaderField: "Content-Range") ?? "missing")) to a request for"
                            + " the whole resource"))
                return .cancel
            case 416 where rangeSent:
                if let total = range?.total, total == state.bytes {
                    state.total = total
                    state.reception = .completeWhenDone
                } else {
                    restartFile(&state, reason: .rangeNotSatisfiable)
                    state.reception = .restartWhenDone
                }
            case 200..<300:
                if state.bytes > 0 {
                    restartFile(&state, reason: .resourceChanged)
                }
                let entityTag = response.value(forHTTPHeaderField: "ETag")
                state.entityTag = entityTag.flatMap { $0.hasPrefix("W/") ? nil : $0 }
                state.lastModified = response.value(forHTTPHeaderField: "Last-Modified")
                state.acceptsRanges =
                    response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased()
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
            return .allow
        }
        flush()
        return disposition
    }

    func didReceive(_ data: Data) {
        var untrusted: URLSessionTask?
        let failure = state.withLock { state -> (any Error)? in
            guard case .running(let task) = state.phase else {
                return nil
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
                    untrusted = task
                    return nil
                }
                do {
                    try state.file?.write(contentsOf: data)
                } catch {
                    return error
                }
                state.bytes = after
                send(.progress(makeProgress(state, event: nil)))
            case .errorBody:
                state.errorBody.append(
                    data.prefix(max(0, TransferState<Response>.errorBodyLimit - state.errorBody.count)))
            case .nothing, .restartWhenDone, .completeWhenDone, .failWhenDone:
                break
            }
            return nil
        }
        untrusted?.cancel()
        if let failure {
            fail(failure)
        }
        flush()
    }

    func willRedirect(after response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        state.withLock { $0.redirects.next(after: response, redirect: request, policy: redirectPolicy) }
    }

    func didComplete(_ task: URLSessionTask, error: (any Error)?) {
        enum Next {
            case nothing
            case attemptNow
            case attemptAfter(TimeInterval)
            case finish
            case end(Result<Response, any Error>, keepsPartial: Bool)
        }
        /// After an attempt that failed with `failure`: the next attempt after its wait, or the end, keeping the
        /// partial file, with `failure` itself after one attempt and ``FetchError/attemptsExhausted`` after more.
        func retryOrEnd(_ failure: any Error, _ state: inout State) -> Next {
            if let wait = attemptEnded(.failure(failure), state: &state) {
                return .attemptAfter(wait)
            }
            let attempts = state.attempts
            return .end(
                .failure(attempts > 1 ? FetchError.attemptsExhausted(attempts: attempts, lastError: failure) : failure),
                keepsPartial: true)
        }
        let next = state.withLock { state -> Next in
            guard case .running(let current) = state.phase, current === task else {
                return .nothing
            }
            state.deadline?.cancel()
            state.deadline = nil
            if let timeout = state.timedOutAfter {
                return retryOrEnd(FetchError.timedOut(request: request, seconds: timeout), &state)
            }
            if let refusal = state.redirects.refusal {
                return .end(.failure(refusal), keepsPartial: true)
            }
            switch state.reception {
            case .restartWhenDone:
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
                    let lost = FetchError.transport(URLError(.networkConnectionLost))
                    return attemptEnded(.failure(lost), state: &state).map(Next.attemptAfter)
                        ?? .end(.failure(lost), keepsPartial: true)
                }
                return .finish
            case .errorBody where error == nil:
                let outcome = Exchange.response(
                    for: request, data: state.errorBody, urlResponse: task.response, error: nil)
                if let wait = attemptEnded(outcome, state: &state) {
                    return .attemptAfter(wait)
                }
                return .end(outcome.flatMap(parse), keepsPartial: false)
            case .nothing, .body, .errorBody:
                return retryOrEnd(
                    Self.transportError(error, midBody: state.reception == .body, timeout: request.timeout), &state)
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

    /// The error of an attempt that failed: a connection lost mid-body is `networkConnectionLost`, which the retry
    /// policy knows, even where swift-corelibs-foundation reports it as an unknown error (libcurl's "transfer closed
    /// with N bytes remaining to read").
    private static func transportError(_ error: (any Error)?, midBody: Bool, timeout: TimeInterval?) -> any Error {
        guard let error else {
            return FetchError.transport(URLError(.networkConnectionLost))
        }
        if midBody, let urlError = error as? URLError, urlError.code == .unknown {
            var userInfo: [String: Any] = [
                NSLocalizedDescriptionKey: urlError.localizedDescription, NSUnderlyingErrorKey: urlError,
            ]
            userInfo[NSURLErrorFailingURLErrorKey] = urlError.failingURL
            return FetchError.transport(URLError(.networkConnectionLost, userInfo: userInfo))
        }
        return Exchange.transportError(error, timeout: timeout)
    }

    // MARK: - Finishing

    /// Checks the whole body and moves it into place, off the delegate's queue: hashing a large file takes a while.
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
                state.lastSuccess.map { Response(httpResponse: $0, data: nil, originalRequest: request) }
                ?? Response(status: 200, headers: [:], data: nil, originalRequest: request, url: request.url)
            return (state.total, response)
        }
        guard let checked else {
            return
        }
        DispatchQueue.global().async { [self] in
            let result = Result { try verifyAndMove(total: checked.total) }.flatMap {
                bytes -> Result<Response, any Error> in
                state.withLock { _ in
                    send(.progress(TransferProgress(completedBytes: bytes, expectedBytes: checked.total ?? bytes)))
                }
                return parse(checked.response)
            }
            var keepsPartial = true
            if case .failure(let error as FetchError) = result, case .integrityCheckFailed = error {
                keepsPartial = false
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
        if let expected = resumption.expectedSHA256 {
            let digest = try SHA256.hexDigest(ofFile: partial)
            guard digest == expected.lowercased() else {
                throw integrityError("its SHA-256 is \(digest), not \(expected.lowercased())")
            }
        }
        let isCancelled = state.withLock { state in state.isFinished }
        guard !isCancelled else {
            throw FetchError.cancelled()
        }
        let files = FileManager.default
        if files.fileExists(atPath: destination.path) {
            try files.removeItem(at: destination)
        }
        try files.moveItem(at: partial, to: destination)
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
        if ended, !keepsPartial, case .failure = result {
            // Best effort: a partial file that is wrong or belongs to a gone resource is only worth removing.
            try? DownloadResumption.removePartialFiles(for: destination)
        }
        flush()
    }

    private func integrityError(_ reason: String) -> FetchError {
        .integrityCheckFailed(url: request.url, reason: reason)
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

    /// Whether a `206` comes from the version whose bytes the partial file holds: its strong `ETag` is the one
    /// recorded, or, when only a `Last-Modified` was recorded, its `Last-Modified` is that one. A `206` without the
    /// validator does not say which version it is, and is not trusted.
    private static func hasValidator(of state: State, _ response: HTTPURLResponse) -> Bool {
        if let entityTag = state.entityTag {
            return response.value(forHTTPHeaderField: "ETag") == entityTag
        }
        if let lastModified = state.lastModified {
            return response.value(forHTTPHeaderField: "Last-Modified") == lastModified
        }
        return false
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
        send(.progress(makeProgress(state, event: .restarting(reason))))
    }

    private func saveRecord(_ state: State) {
        guard state.canResume else {
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
        try? FileManager.default.removeItem(at: recordFile)  // nil: there was none
    }

    private func closeFile(_ state: inout State) {
        try? state.file?.close()  // every write went to the file already: nothing is lost
        state.file = nil
    }

    // MARK: - Delivery

    /// The progress value for the bytes in the partial file now. Values are made and queued under `state`'s lock,
    /// in the order of the events they count, so they are monotonic between restarts by construction.
    private func makeProgress(_ state: State, event: TransferProgress.Event?) -> TransferProgress {
        TransferProgress(completedBytes: state.bytes, expectedBytes: state.total, event: event)
    }

    /// Queues `item` behind the ones before it; ``flush()`` hands it over.
    private func send(_ item: Delivery) {
        outbox.withLock { $0.append(item) }
    }

    /// Hands the queued items over, each in a work item of its own on the callback queue.
    private func flush() {
        let count = outbox.withLock { $0.count }
        for _ in 0..<count {
            perform { [self] in deliverNext() }
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

    private func perform(_ work: @escaping @Sendable () -> Void) {
        if let queue {
            queue.addOperation(work)
        } else {
            work()
        }
    }
}

/// A `Content-Range` value (RFC 9110 §14.4): `bytes 100-199/1000`, `bytes 100-199/*` or `bytes */1000`.
///
/// The positions are read with ``WireNumber/byteCount(_:)``: digits only, no sign, no value past `Int64.max`. A
/// range whose first byte is after its last, or whose last byte is not before the complete length, is not a range.
package struct ContentRange: Equatable, Sendable {
    /// The first byte's offset, or `nil` for `*`.
    package let start: Int64?
    /// The last byte's offset (inclusive), or `nil` for `*`.
    package let end: Int64?
    /// The length of the whole resource, or `nil` for `*`.
    package let total: Int64?

    package init(start: Int64?, end: Int64?, total: Int64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    /// Reads a `Content-Range` value; `nil` when it is not a byte range, or not a consistent one.
    package init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else {
            return nil
        }
        let parts = trimmed.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return nil
        }
        let range = parts[0].drop { $0 == " " }
        let length = parts[1]
        if length == "*" {
            total = nil
        } else {
            guard let total = Self.position(length) else {
                return nil
            }
            self.total = total
        }
        if range == "*" {
            // `bytes */*` says nothing.
            guard total != nil else {
                return nil
            }
            start = nil
            end = nil
        } else {
            let bounds = range.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.position(bounds[0]), let last = Self.position(bounds[1]),
                first <= last, total.map({ last < $0 }) ?? true
            else {
                return nil
            }
            start = first
            end = last
        }
    }

    /// The offset just past the bytes a `206` with this range carries, when the range starts at `bytes` (where the
    /// partial file ends), agrees with the resource's length known so far and with the response's `Content-Length`;
    /// `nil` otherwise.
    package func bodyEnd(continuing bytes: Int64, contentLength: Int64?, knownTotal: Int64?) -> Int64? {
        guard let start, let end, start == bytes else {
            return nil
        }
        if let knownTotal, let total, total != knownTotal {
            return nil
        }
        // Without a total, `end` may be `Int64.max`, and one past it does not fit.
        let (limit, overflow) = end.addingReportingOverflow(1)
        guard !overflow else {
            return nil
        }
        if let contentLength, contentLength != limit - start {
            return nil
        }
        return limit
    }

    /// A position or length: digits and nothing else.
    private static func position(_ text: Substring) -> Int64? {
        guard !text.contains(where: { $0 == " " || $0 == "\t" }) else {
            return nil
        }
        return WireNumber.byteCount(text)
    }
}
