import Foundation

/// The chunks of a streamed body that have arrived and that the consumer has not read yet, bounded in memory.
///
/// The network side calls ``receive(_:)`` and ``finish(throwing:)``; the one consumer calls ``next()``. When more than
/// ``limit`` bytes wait in memory, the buffer applies back-pressure:
///
/// - ``Backpressure/suspendTask``: it suspends the `URLSessionTask`, so that nothing more is read from the socket,
///   and resumes it once the consumer has read down to half the limit (Apple platforms).
/// - ``Backpressure/spillToDisk``: it writes what arrives next to an unlinked temporary file, and hands it on from
///   there in order (swift-corelibs-foundation, where `suspend()` on a running data task removes it from libcurl and
///   `resume()` sends the request again from the start, so the body arrives twice).
///
/// A chunk that arrives while the consumer waits is handed to it directly, without a copy or a wait.
///
/// What spills is bounded by the body's length only, not by the transport's size limit: a stream may be
/// endless, and a consumer that keeps up leaves nothing to spill. The file is unlinked when it is created and
/// emptied whenever the consumer catches up, so nothing outlives the stream.
package final class ChunkBuffer: Sendable {
    /// What the buffer does when the consumer falls more than ``ChunkBuffer/limit`` bytes behind.
    package enum Backpressure: Sendable {
        /// Suspend the task until the consumer has read down to half the limit.
        case suspendTask
        /// Keep what arrives next in a temporary file.
        case spillToDisk

        /// The strategy that works on this platform.
        package static var platform: Backpressure {
            #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
                .spillToDisk
            #else
                .suspendTask
            #endif
        }
    }

    /// What the buffer asks of the transfer that fills it.
    package struct Control: Sendable {
        /// Stops reading from the network.
        package var pause: @Sendable () -> Void
        /// Reads from the network again.
        package var resume: @Sendable () -> Void
        /// Cancels the transfer: the consumer stopped reading.
        package var cancel: @Sendable () -> Void

        package init(
            pause: @escaping @Sendable () -> Void,
            resume: @escaping @Sendable () -> Void,
            cancel: @escaping @Sendable () -> Void
        ) {
            self.pause = pause
            self.resume = resume
            self.cancel = cancel
        }
    }

    private enum Ending {
        case finished
        case failed(any Error)
    }

    private struct State {
        var chunks: [Data] = []
        var first = 0
        var memoryBytes = 0
        var spill: SpillFile?
        var ending: Ending?
        var waiter: CheckedContinuation<Data?, any Error>?
        /// Called once when something arrives for a consumer that polls (``poll(gathering:orWake:)``) and found
        /// nothing.
        var wake: (@Sendable () -> Void)?
        /// How many bytes that consumer gathers while a burst arrives before ``wake`` is called, and when it began
        /// to wait (uptime nanoseconds).
        var wakeAt = 1
        var waitingSince: UInt64 = 0
        /// Whether a late wake is scheduled for that consumer: bytes held back for it while a burst arrives are
        /// handed on ``ChunkBuffer/burstGap`` later even when the burst stops short of ``wakeAt`` (a server that
        /// stalls mid-body), rather than when the next chunk comes.
        var isLateWakeScheduled = false
        var isPaused = false
        /// The largest number of bytes that waited in memory at once, for tests and benchmarks.
        var peakMemoryBytes = 0
        /// The bytes of the body that arrived, kept or handed on.
        var receivedBytes = 0
        /// What the transport measured of the whole exchange when it finished it.
        var finalMetrics: AttemptMetrics?

        var spilledBytes: Int { spill?.unread ?? 0 }
        var isEmpty: Bool { first == chunks.count && spilledBytes == 0 }

        /// The wake of a polling consumer when it is due, taken: at the end of the body, once the bytes it gathers
        /// have arrived, or for a chunk that does not follow the consumer's last read closely (a slow body wakes it
        /// for every chunk, as the others do).
        mutating func dueWake(now: () -> UInt64) -> (@Sendable () -> Void)? {
            guard let due = wake else {
                return nil
            }
            guard
                ending != nil || memoryBytes + spilledBytes >= wakeAt
                    || now() &- waitingSince >= ChunkBuffer.burstGap
            else {
                return nil
            }
            wake = nil
            return due
        }
    }

    /// How soon after a polling consumer's last read a chunk must arrive to count as the same burst, which it
    /// gathers rather than wakes for: 1 ms (a loopback or LAN burst hands over 16 KiB chunks tens of microseconds
    /// apart).
    fileprivate static let burstGap: UInt64 = 1_000_000

    /// Schedules work after a delay in nanoseconds: the late wake of a gathering consumer.
    package typealias Scheduler = @Sendable (_ nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) -> Void

    /// What to do once the lock is released.
    private enum Action {
        case none
        case deliver(CheckedContinuation<Data?, any Error>, Result<Data?, any Error>, resumesTransfer: Bool)
        case pause
        case fail(CheckedContinuation<Data?, any Error>?, any Error)
    }

    /// How many bytes may wait in memory before back-pressure applies.
    package let limit: Int
    private let backpressure: Backpressure
    private let control: Control
    private let now: @Sendable () -> UInt64
    private let schedule: Scheduler
    private let state = Locked(State())

    /// How many bytes one read from the spill file hands on at most.
    private static let spillReadSize = 256 * 1024

    /// - Parameters:
    ///   - limit: How many bytes may wait in memory before back-pressure applies.
    ///   - backpressure: What to do then. The default is ``Backpressure/platform``.
    ///   - control: How to pause, resume and cancel the transfer.
    ///   - now: The monotonic time in nanoseconds, which tells a burst of chunks from a slow body (see
    ///     ``poll(gathering:orWake:)``); tests pass their own.
    ///   - schedule: Runs the late wake of a gathering consumer after a delay; tests pass their own.
    package init(
        limit: Int, backpressure: Backpressure = .platform, control: Control,
        now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
        schedule: @escaping Scheduler = { delay, work in
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay)), execute: work)
        }
    ) {
        self.limit = max(1, limit)
        self.backpressure = backpressure
        self.control = control
        self.now = now
        self.schedule = schedule
    }

    /// The largest number of bytes that waited in memory at once so far.
    package var peakMemoryBytes: Int {
        state.withLock { $0.peakMemoryBytes }
    }

    // MARK: - Network side

    /// Keeps a chunk that arrived, or hands it to the waiting consumer.
    package func receive(_ data: Data) {
        guard !data.isEmpty else {
            return
        }
        var wake: (@Sendable () -> Void)?
        var schedulesLateWake = false
        defer {
            wake?()
            if schedulesLateWake {
                schedule(Self.burstGap) { [weak self] in self?.wakeLate() }
            }
        }
        let action = state.withLock { state -> Action in
            defer {
                wake = state.dueWake(now: now)
                if wake == nil, state.wake != nil, !state.isLateWakeScheduled, !state.isEmpty {
                    state.isLateWakeScheduled = true
                    schedulesLateWake = true
                }
            }
            guard state.ending == nil else {
                return .none
            }
            state.receivedBytes &+= data.count
            if let waiter = state.waiter, state.isEmpty {
                state.waiter = nil
                return .deliver(waiter, .success(data), resumesTransfer: false)
            }
            if backpressure == .spillToDisk, state.spilledBytes > 0 || state.memoryBytes + data.count > limit {
                do {
                    if state.spill == nil {
                        state.spill = try SpillFile()
                    }
                    try state.spill?.write(data)
                    return .none
                } catch {
                    return fail(&state, with: error)
                }
            }
            state.chunks.append(data)
            state.memoryBytes += data.count
            state.peakMemoryBytes = max(state.peakMemoryBytes, state.memoryBytes)
            if backpressure == .suspendTask, state.memoryBytes > limit, !state.isPaused {
                state.isPaused = true
                return .pause
            }
            return .none
        }
        perform(action)
    }

    /// Wakes a gathering consumer that still waits for a burst that stopped short: what arrived is handed on.
    private func wakeLate() {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            state.isLateWakeScheduled = false
            guard let wake = state.wake, !state.isEmpty || state.ending != nil else {
                return nil
            }
            state.wake = nil
            return wake
        }
        wake?()
    }

    /// The bytes of the body that have arrived so far.
    package var receivedBytes: Int {
        state.withLock { $0.receivedBytes }
    }

    /// What the transport measured of the whole exchange, from its start to the last byte, once the body has
    /// arrived whole; `nil` before, after a failure, or when it measured nothing.
    package var finalMetrics: AttemptMetrics? {
        state.withLock { $0.finalMetrics }
    }

    /// Ends the body: after the chunks still buffered, the consumer gets the end, or `error`. `metrics` is what the
    /// transport measured of the whole exchange when the body arrived whole, which ``finalMetrics`` keeps.
    package func finish(throwing error: (any Error)? = nil, metrics: AttemptMetrics? = nil) {
        var wake: (@Sendable () -> Void)?
        defer { wake?() }
        let action = state.withLock { state -> Action in
            wake = state.wake
            state.wake = nil
            guard state.ending == nil else {
                return .none
            }
            state.finalMetrics = metrics
            state.ending = error.map(Ending.failed) ?? .finished
            guard let waiter = state.waiter, state.isEmpty else {
                return .none
            }
            state.waiter = nil
            return .deliver(waiter, error.map { .failure($0) } ?? .success(nil), resumesTransfer: false)
        }
        perform(action)
    }

    // MARK: - Consumer side

    /// The next chunk, waiting for it if need be; `nil` at the end of the body.
    ///
    /// - Throws: The transfer's error, or ``FetchError/cancelled(request:)`` when the awaiting task is cancelled (which
    ///   cancels the transfer).
    package func next() async throws -> Data? {
        if let ready = try takeReady() {
            return ready.value
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let action = state.withLock { state -> Action in
                    do {
                        if let ready = try take(from: &state) {
                            return .deliver(
                                continuation, .success(ready.value), resumesTransfer: ready.resumesTransfer)
                        }
                    } catch {
                        return .deliver(continuation, .failure(error), resumesTransfer: false)
                    }
                    state.waiter = continuation
                    return .none
                }
                perform(action)
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the transfer and drops what is buffered; a waiting ``next()`` throws ``FetchError/cancelled(request:)``. Does
    /// nothing once the body has ended.
    package func cancel() {
        var wake: (@Sendable () -> Void)?
        defer { wake?() }
        let action = state.withLock { state -> Action in
            wake = state.wake
            state.wake = nil
            guard state.ending == nil else {
                return .none
            }
            return fail(&state, with: FetchError.cancelled())
        }
        perform(action)
    }

    /// The next chunk if one is ready (`.some(nil)` at the end of the body), without waiting and off any task:
    /// `nil` when the consumer has to wait, and then `wake` is called once, on the network's thread (or a Dispatch
    /// thread, for a burst that stopped short), when something has arrived (or the body ended or was cancelled), to
    /// poll again.
    ///
    /// - Throws: The transfer's error, or ``FetchError/cancelled(request:)`` after ``cancel()``.
    ///
    /// A consumer that writes what it reads (a download to a file) passes the bytes to `gathering`: while a burst
    /// arrives, `wake` is called once that many have (at most ``limit``), or at the end, rather than for every chunk,
    /// which saves a thread hop per chunk; a chunk that comes more than a millisecond after the consumer began to
    /// wait wakes it at once, so that a slow body is handed on as it comes, and a burst that stops short of
    /// `gathering` (a server that stalls) wakes it a millisecond after its first chunk.
    package func poll(gathering bytes: Int = 1, orWake wake: @escaping @Sendable () -> Void) throws -> Data?? {
        let ready = try state.withLock { state -> Ready? in
            if let ready = try take(from: &state) {
                return ready
            }
            state.wake = wake
            state.wakeAt = min(max(1, bytes), limit)
            state.waitingSince = state.wakeAt > 1 ? now() : 0
            return nil
        }
        if ready?.resumesTransfer == true {
            control.resume()
        }
        return ready.map(\.value)
    }

    /// A value that is ready without waiting: a chunk, or the end (`value` is `nil`).
    private struct Ready {
        let value: Data?
        /// Whether taking it brought a suspended transfer's buffer down to where it is to be resumed.
        var resumesTransfer = false
    }

    private func takeReady() throws -> Ready? {
        let ready = try state.withLock { try take(from: &$0) }
        if ready?.resumesTransfer == true {
            control.resume()
        }
        return ready
    }

    /// Takes the oldest chunk, or the end, under the lock; `nil` when the consumer has to wait.
    private func take(from state: inout State) throws -> Ready? {
        if state.first < state.chunks.count {
            let chunk = state.chunks[state.first]
            state.chunks[state.first] = Data()
            state.first += 1
            state.memoryBytes -= chunk.count
            if state.first == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.first = 0
            }
            let resumes = state.isPaused && state.memoryBytes <= limit / 2
            if resumes {
                state.isPaused = false
            }
            return Ready(value: chunk, resumesTransfer: resumes)
        }
        if let spill = state.spill, spill.unread > 0 {
            return Ready(value: try spill.read(upTo: Self.spillReadSize))
        }
        switch state.ending {
        case .none:
            return nil
        case .finished:
            return Ready(value: nil)
        case .failed(let error):
            // An error is thrown once; after it the body has ended.
            state.ending = .finished
            throw error
        }
    }

    private func fail(_ state: inout State, with error: any Error) -> Action {
        state.ending = .failed(error)
        state.chunks = []
        state.first = 0
        state.memoryBytes = 0
        state.spill = nil
        let waiter = state.waiter
        state.waiter = nil
        if waiter != nil {
            state.ending = .finished
        }
        return .fail(waiter, error)
    }

    private func perform(_ action: Action) {
        switch action {
        case .none:
            break
        case .deliver(let continuation, let result, let resumesTransfer):
            if resumesTransfer {
                control.resume()
            }
            continuation.resume(with: result)
        case .pause:
            control.pause()
        case .fail(let waiter, let error):
            control.cancel()
            waiter?.resume(throwing: error)
        }
    }
}
