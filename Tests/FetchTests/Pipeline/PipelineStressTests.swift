import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Exactly-once completion and parallel parsing through whole stacks, against the loopback test server.
@Suite struct PipelineStressTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    @Test func everyCallThroughAFullStackEndsExactlyOnceWhenCancelledAtRandom() async throws {
        let queue = OperationQueue()
        let tokens = BearerAuthenticator(token: "t0k3n") { $0(.success("fresh")) }
        let stack = makeSession(callbackQueue: queue)
            .with(.retry(RetryPolicy(maximumAttempts: 3, backoff: Backoff(initialDelay: 0.01))))
            .with(.authenticate(with: tokens))
            .with(.deduplicate())
            .with(.cache(ResponseCache()))
            .with(.observe { _ in })
        let run = UUID().uuidString
        let endings = Locked([Int: [Result<Data, any Error>]]())
        let ended = Captured<Int>()
        for index in 0..<200 {
            // A few paths, so that calls share flights and stored responses; some fail and are retried.
            let path =
                switch index % 4 {
                case 0: "/slow/\(run)-\(index % 8)?ms=\(Int.random(in: 0...40))"
                case 1: "/cacheable/\(run)-\(index % 8)?cc=max-age%3D60"
                case 2: "/flaky/\(run)-\(index)?fail=1"
                default: "/delay/\(Int.random(in: 0...30))"
                }
            let call = stack.perform(TestRequest(server.url(path))) { (result: Result<Data, any Error>) in
                endings.withLock { $0[index, default: []].append(result) }
                ended.capture(index)
            }
            let delay = Double.random(in: 0...0.05)
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { call.cancel() }
        }
        _ = try await ended.wait(for: 200, timeout: 60)
        // Any second completion would come from work still in flight; one more call through the same stack,
        // answered after that work, gives it the time to show.
        let _: Data = try await stack.perform(TestRequest(server.url("/slow/\(run)-barrier?ms=200")))
        let counts = endings.withLock { $0.mapValues(\.count) }
        #expect(counts.count == 200)
        #expect(counts.values.allSatisfy { $0 == 1 }, "calls ended more than once: \(counts.filter { $0.value != 1 })")
        for results in endings.withLock({ $0.values }) {
            guard case .failure(let error) = results[0] else {
                continue
            }
            guard case .cancelled = error.fetchKind else {
                Issue.record("a call failed with something other than its result or .cancelled: \(error)")
                continue
            }
        }
    }

    /// Two decodes meeting: the first waits, for a bounded time, until the second has started, so they overlap
    /// only if they can run at once.
    final class Meeting: Sendable {
        private let started = Locked(0)
        private let secondStarted = DispatchSemaphore(value: 0)

        /// Whether this decode saw the other one start while it ran.
        func arrive() -> Bool {
            let order = started.withLock { count in
                count += 1
                return count
            }
            guard order == 1 else {
                secondStarted.signal()
                return true
            }
            return secondStarted.wait(timeout: .now() + 10) == .success
        }
    }

    struct Rendezvous: Decodable, Parsable {
        static let meeting = Meeting()
        let sawTheOther: Bool

        init(from decoder: any Decoder) throws {
            _ = try [Int](from: decoder)
            sawTheOther = Self.meeting.arrive()
        }
    }

    /// A model that records the queue it was decoded on.
    struct QueueRecorder: Decodable, Parsable {
        let queueName: String?

        init(from decoder: any Decoder) throws {
            _ = try [Int](from: decoder)
            queueName = OperationQueue.current?.name
        }
    }

    @Test func largeResponsesDecodeInParallelOffTheCallbackQueue() async throws {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = makeSession(callbackQueue: queue)
        let results = Captured<Result<Rendezvous, any Error>>()
        for index in 0..<2 {
            session.perform(TestRequest(server.url("/json-array/20000?id=\(index)")), completion: results.capture)
        }
        let decoded = try await results.wait(for: 2, timeout: 30).map { try $0.get() }
        #expect(decoded.allSatisfy { $0.sawTheOther }, "the first decode finished without seeing the second start")
    }

    /// The `async` form parses on the awaiting task, which runs in parallel with others by construction: what
    /// matters is that it is not URLSession's serial delegate queue. (Not a rendezvous: blocking Swift's cooperative
    /// threads to wait for another task would starve the rest of the suite.)
    @Test func asyncCallsDecodeOffTheDelegateQueue() async throws {
        let session = makeSession()
        let decoded: QueueRecorder = try await session.perform(TestRequest(server.url("/json-array/20000?id=a")))
        #expect(decoded.queueName != "Fetch.Session.delegate")
    }
}
