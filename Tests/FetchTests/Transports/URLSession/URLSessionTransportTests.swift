import FetchTesting
import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `TaskCall` that ends lets go of what reports its answer, however it ends: the answer's closure keeps the call
/// itself and the caller's completion, so a cancelled or timed-out call would otherwise stay in memory for good
/// (about 3 KB a request through a stack of middlewares).
@Suite struct URLSessionTransportTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// What a caller's completion keeps alive, watched without keeping it.
    private final class Caller: Sendable {}
    private final class Watch: @unchecked Sendable {
        // Written once, before the call starts; read after it has ended.
        weak var caller: Caller?
    }

    /// Starts a call the way the transport does, its answer keeping the call and a caller, then ends it with `end`;
    /// `reported` gets the error the call ended with.
    private func endedCall(reported: Captured<FetchError>, _ end: (TaskCall) -> Void) -> (Watch, URLSession) {
        let urlSession = URLSession(configuration: .ephemeral)
        let url = server.url("/delay/5000")
        let watch = Watch()
        do {
            let caller = Caller()
            watch.caller = caller
            let call = TaskCall(registry: CallRegistry(), request: TestRequest(url), originalURL: url, limit: 1 << 20)
            call.whenAnswered { _, _, _ in
                _ = call.finish()
                _ = caller
            }
            call.start(urlSession.dataTask(with: url)) { reported.capture($0) }
            end(call)
        }
        return (watch, urlSession)
    }

    @Test func aCancelledCallLetsGoOfItsCompletion() async throws {
        let reported = Captured<FetchError>()
        let (watch, urlSession) = endedCall(reported: reported) { $0.cancel() }
        defer { urlSession.invalidateAndCancel() }
        guard case .cancelled = try await reported.first().fetchKind else {
            Issue.record("expected .cancelled, got \(reported.values)")
            return
        }
        #expect(watch.caller == nil)
    }

    @Test func aCallThatTimedOutLetsGoOfItsCompletion() async throws {
        let reported = Captured<FetchError>()
        let (watch, urlSession) = endedCall(reported: reported) { $0.endWithTimeout(after: 0.01) }
        defer { urlSession.invalidateAndCancel() }
        guard case .timedOut = try await reported.first().fetchKind else {
            Issue.record("expected .timedOut, got \(reported.values)")
            return
        }
        #expect(watch.caller == nil)
    }
}
