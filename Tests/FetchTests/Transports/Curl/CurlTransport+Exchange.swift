#if os(Linux)
    import Fetch
    import FetchTesting
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension CurlTransport {
        /// Sends `request` and waits for its outcome.
        func exchange(_ request: URLRequest, timeout: TimeInterval = 20) async -> Result<
            (HTTPURLResponse, Data), any Error
        > {
            await withCheckedContinuation { continuation in
                send(request, timeout: timeout) { continuation.resume(returning: $0) }
            }
        }

        /// Sends a GET of `url` and waits for its outcome.
        func get(_ url: URL, timeout: TimeInterval = 20) async -> Result<(HTTPURLResponse, Data), any Error> {
            await exchange(URLRequest(url: url), timeout: timeout)
        }
    }

    /// What a call that was cancelled reported: the call, every outcome it delivered with the seconds each took, and
    /// the seconds the first took.
    typealias CancelledCall = (
        call: any CancellableCall,
        outcomes: Captured<(Result<(HTTPURLResponse, Data), any Error>, TimeInterval)>,
        elapsed: TimeInterval
    )

    /// Starts a call with `send` and cancels it `delay` seconds later from a thread of its own (so that a test run
    /// that keeps Swift's cooperative threads busy cannot delay the cancel); its first outcome must be
    /// ``FetchError/cancelled(request:)``.
    func cancelled(
        after delay: TimeInterval,
        _ send: (@escaping @Sendable (Result<(HTTPURLResponse, Data), any Error>) -> Void) -> any CancellableCall
    ) async throws -> CancelledCall {
        let started = Date()
        let outcomes = Captured<(Result<(HTTPURLResponse, Data), any Error>, TimeInterval)>()
        let call = send { result in
            outcomes.capture((result, Date().timeIntervalSince(started)))
        }
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: delay)
            call.cancel()
        }
        let (result, elapsed) = try await outcomes.first()
        guard case .cancelled = result.failureKind else {
            throw TestServerError("expected FetchError.cancelled(), got \(result)")
        }
        return (call, outcomes, elapsed)
    }

    /// The `URLError` inside a `FetchError.transport` result, or a test failure naming what came instead.
    func transportError<T>(_ result: Result<T, any Error>) throws -> URLError {
        guard case .transport(let error, _) = result.failureKind else {
            throw TestServerError("expected FetchError.transport, got \(result)")
        }
        return error
    }
#endif
