import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stream over a caller's `URLSession` goes through that session, so the session's delegate decides the stream's
/// authentication challenges as it does every other call's (on Apple platforms server trust too: pinning holds).
@Suite struct CallersURLSessionStreamTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// A session delegate of the app's that counts the challenges it decides, and leaves each to the default.
    final class CountingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        let challenges = Locked(0)

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            challenges.withLock { $0 += 1 }
            completionHandler(.performDefaultHandling, nil)
        }
    }

    @Test func aStreamsChallengeIsDecidedByTheCallersSessionDelegate() async throws {
        let delegate = CountingDelegate()
        let urlSession = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { urlSession.finishTasksAndInvalidate() }
        let session = Session(transport: URLSessionTransport(session: urlSession), callbackQueue: OperationQueue())
        // The timeout only bounds the test: the 401 arrives within milliseconds.
        let opened = await Result { try await session.stream(TestRequest(server.url("/faults/basic"), timeout: 10)) }
        guard case .unacceptableStatus(let response) = opened.failureKind else {
            Issue.record("expected the 401, got \(opened)")
            return
        }
        #expect(response.status == 401)
        #expect(delegate.challenges.withLock { $0 } == 1)
    }

    @Test func aStreamOverTheCallersSessionDeliversItsBody() async throws {
        let urlSession = URLSession(configuration: .ephemeral, delegate: CountingDelegate(), delegateQueue: nil)
        defer { urlSession.finishTasksAndInvalidate() }
        let session = Session(transport: URLSessionTransport(session: urlSession), callbackQueue: OperationQueue())
        let stream = try await session.stream(TestRequest(server.url("/stream/jsonl?count=3")))
        #expect(stream.response.status == 200)
        var lines: [String] = []
        for try await line in stream.lines {
            lines.append(line)
        }
        #expect(lines == (0..<3).map { #"{"n": \#($0), "name": "item \#($0)"}"# })
    }
}
