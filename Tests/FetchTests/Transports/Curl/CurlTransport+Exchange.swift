#if os(Linux)
    import Fetch
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

    /// The `URLError` inside a `FetchError.transport` result, or a test failure naming what came instead.
    func transportError<T>(_ result: Result<T, any Error>) throws -> URLError {
        guard case .transport(let error, _) = result.failureKind else {
            throw TestServerError("expected FetchError.transport, got \(result)")
        }
        return error
    }
#endif
