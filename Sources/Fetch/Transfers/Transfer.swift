import Foundation

/// The progress values a ``Transfer`` has not handed to its reader yet.
///
/// It keeps the newest 256 values: a slow reader loses the oldest byte counts, never an event
/// (``TransferProgress/event``) nor the newest value. So memory stays bounded (beyond 256 values, by the number of
/// events, which the retry policy bounds) and the last value read is the final count.
private final class ProgressBuffer: Sendable {
    private static var limit: Int { 256 }

    private struct State {
        var values: [TransferProgress] = []
        var isFinished = false
        var reader: CheckedContinuation<TransferProgress?, Never>?
    }

    private let state = Locked(State())

    func push(_ value: TransferProgress) {
        let reader = state.withLock { state -> CheckedContinuation<TransferProgress?, Never>? in
            guard !state.isFinished else {
                return nil
            }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            if state.values.count >= Self.limit, let oldest = state.values.firstIndex(where: { $0.event == nil }) {
                state.values.remove(at: oldest)
            }
            state.values.append(value)
            return nil
        }
        reader?.resume(returning: value)
    }

    func finish() {
        let reader = state.withLock { state -> CheckedContinuation<TransferProgress?, Never>? in
            state.isFinished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
    }

    /// The next value, waiting for it; `nil` once the transfer has ended and every value has been read.
    func next() async -> TransferProgress? {
        await withCheckedContinuation { continuation in
            let value = state.withLock { state -> TransferProgress?? in
                if !state.values.isEmpty {
                    return .some(state.values.removeFirst())
                }
                if state.isFinished {
                    return .some(nil)
                }
                state.reader = continuation
                return nil
            }
            if let value {
                continuation.resume(returning: value)
            }
        }
    }
}

/// A download or upload in flight, for `async` code: its progress as an `AsyncSequence`, its result to await.
///
/// Cancelling the `Task` that awaits ``value`` cancels the transfer, as ``cancel()`` does.
public final class Transfer<Value: Sendable>: CancellableCall {
    /// The progress values, in order, ending when the transfer ends. Iterate it once.
    public let progress: AsyncStream<TransferProgress>

    private let outcome = Locked(Outcome.running([]))
    private let call = Locked<(any CancellableCall)?>(nil)

    private enum Outcome {
        case running([CheckedContinuation<Value, any Error>])
        case finished(Result<Value, any Error>)
    }

    init(
        start: (
            @escaping @Sendable (TransferProgress) -> Void, @escaping @Sendable (Result<Value, any Error>) -> Void
        ) -> any CancellableCall
    ) {
        let buffer = ProgressBuffer()
        progress = AsyncStream(unfolding: { await buffer.next() })
        let report: @Sendable (Result<Value, any Error>) -> Void = { [outcome] result in
            buffer.finish()
            let waiting = outcome.withLock { outcome -> [CheckedContinuation<Value, any Error>] in
                guard case .running(let waiting) = outcome else {
                    return []
                }
                outcome = .finished(result)
                return waiting
            }
            for waiter in waiting {
                waiter.resume(with: result)
            }
        }
        let cancellable = start({ buffer.push($0) }, report)
        call.withLock { $0 = cancellable }
    }

    /// The transfer's result: the response of a download (its body in the destination file), or the parsed
    /// response of an upload.
    ///
    /// - Throws: What the download or upload that made it fails with; ``FetchError/cancelled(request:)`` when
    ///   cancelled.
    public var value: Value {
        get async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let finished = outcome.withLock { outcome -> Result<Value, any Error>? in
                        switch outcome {
                        case .running(let waiting):
                            outcome = .running(waiting + [continuation])
                            return nil
                        case .finished(let result):
                            return result
                        }
                    }
                    if let finished {
                        continuation.resume(with: finished)
                    }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// Cancels the transfer; ``value`` throws ``FetchError/cancelled(request:)`` and ``progress`` ends.
    public func cancel() {
        call.withLock { $0 }?.cancel()
    }
}
