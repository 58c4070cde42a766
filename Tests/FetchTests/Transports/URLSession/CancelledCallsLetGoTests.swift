import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Calls that are cancelled in flight leave nothing of theirs behind on any face: every request (and so every call
/// state that holds it, with its completion) is released once the calls have ended. What memory still grows with
/// many cancellations over `URLSession` is swift-corelibs-foundation's (see the Platform differences article).
@Suite struct CancelledCallsLetGoTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// A request that says when it is released.
    final class WatchedRequest: Request, Sendable {
        let url: URL
        let released: Captured<Void>

        init(_ url: URL, released: Captured<Void>) {
            self.url = url
            self.released = released
        }

        deinit {
            released.capture(())
        }
    }

    @Test(arguments: SessionFace.allCases)
    func cancelledCallsReleaseEveryRequest(_ face: SessionFace) async throws {
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let count = 200
        let released = Captured<Void>()
        let ended = Captured<Void>()
        var handles: [any CancellableCall] = []
        for index in 0..<count {
            // The server answers after 200 ms: the cancelled half is cancelled before or while it is sent.
            let handle = session.perform(
                WatchedRequest(server.url("/delay/200"), released: released), errorParser: nil
            ) { (_: Result<Data, any Error>) in
                ended.capture(())
            }
            if index.isMultiple(of: 2) {
                handles.append(handle)
            }
        }
        // Cancelled once all have started, the first of them on the wire.
        for handle in handles {
            handle.cancel()
        }
        handles.removeAll()
        _ = try await ended.wait(for: count, timeout: 60)
        // Every request is released, whether its call was cancelled or answered.
        do {
            _ = try await released.wait(for: count, timeout: 30)
        } catch {
            Issue.record("\(face): \(count - released.values.count) of \(count) requests are still held")
        }
    }
}
