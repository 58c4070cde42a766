import Fetch
import FetchTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs one behaviour on one face, in the child, and measures it.
enum HostileProbe {
    /// Runs `behaviour` on a new session of `face` against `server`: the call, its time and the process's peak
    /// memory during it.
    ///
    /// A call still running at ``HostileBounds/hardDeadline`` is reported hung through `hung`, from a thread of
    /// its own, which must end the process: a call that holds a thread (corelibs' `cancel()` waits on its queue
    /// while libcurl reads endless trailers) can starve the cooperative pool, and one that runs on would blur the
    /// measurements of the behaviours after it.
    static func run(
        _ behaviour: HostileBehaviour, on face: SessionFace, server: HostileServer,
        hung: @escaping @Sendable (HostileResult) -> Never
    ) async throws -> HostileResult {
        let path = server.path(of: behaviour, run: "\(face.rawValue)-\(UUID().uuidString)")
        let url = try server.url(path, credentials: behaviour.call == .getWithURLCredentials)
        let method: HTTPMethod = behaviour.call == .post ? .post : .get
        let (session, finish) = try face.makeSession()
        // Not on this thread: corelibs' `invalidateAndCancel()` waits for its queue, which a behaviour may keep busy
        // after the call has ended (see ``HostileBehaviour/holdsURLSessionQueue``).
        defer { DispatchQueue.global().async(execute: finish) }
        let meter = try MemoryMeter()
        let started = ContinuousClock.now
        let measured: @Sendable () -> HostileResult = {
            let growth: Int
            do {
                growth = try meter.peakGrowth()
            } catch {
                growth = -1
            }
            return HostileResult(
                outcome: .hung, method: method.rawValue, path: path,
                milliseconds: milliseconds(ContinuousClock.now - started), memoryGrowth: growth, kind: "hung",
                message: "no outcome within \(HostileBounds.hardDeadline)")
        }
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if ended.wait(timeout: .now() + .milliseconds(milliseconds(HostileBounds.hardDeadline))) == .timedOut {
                hung(measured())
            }
        }
        let outcome = await Result { try await call(behaviour, url: url, method: method, on: session, server: server) }
        ended.signal()
        var result = measured()
        switch outcome {
        case .success(let answer):
            result.outcome = .ok
            result.kind = answer.summary
            result.message = answer.summary
            result.connections = answer.connections
        case .failure(let error):
            result.outcome = .error
            result.kind = kind(of: error)
            result.message = String(describing: error)
        }
        return result
    }

    /// What a successful call returned.
    struct Answer: Sendable {
        var summary: String
        var connections: Int?
    }

    private static func call(
        _ behaviour: HostileBehaviour, url: URL, method: HTTPMethod, on session: Session, server: HostileServer
    ) async throws -> Answer {
        var request = TestRequest(url, method: method, timeout: HostileBounds.timeout)
        switch behaviour.call {
        case .get, .getWithURLCredentials:
            let data: Data = try await session.perform(request)
            return Answer(summary: "\(data.count) bytes")
        case .post:
            request.body = Data(count: 1 << 20)
            let data: Data = try await session.perform(request)
            return Answer(summary: "\(data.count) bytes")
        case .getWithBasicHeader:
            request.headers = ["Authorization": "Basic " + Data("hostile:wrong".utf8).base64EncodedString()]
            let data: Data = try await session.perform(request)
            return Answer(summary: "\(data.count) bytes")
        case .getRetrying:
            let data: Data = try await session.with(.retry(RetryPolicy(maximumAttempts: 3))).perform(request)
            return Answer(summary: "\(data.count) bytes")
        case .getCachedTwice:
            let cache = CachedPerformer(session, ResponseCache(offlinePolicy: .serveStoredOnFailure))
            let first: Data = try await cache.perform(request)
            let second: Data = try await cache.perform(request)
            return Answer(summary: "\(first.count) bytes, then \(second.count) bytes served stale")
        case .firstLine:
            for try await line in try await session.stream(request).lines {
                return Answer(summary: "a line of \(line.utf8.count) bytes")
            }
            return Answer(summary: "no line")
        case .firstEvent:
            for try await event in session.events(request, reconnectPolicy: .never) {
                return Answer(summary: "an event of \(event.data.utf8.count) bytes")
            }
            return Answer(summary: "no event")
        case .eventsWindow:
            return try await eventsWindow(request, on: session, server: server)
        case .downloadResuming:
            return try await downloadResuming(request, on: session)
        }
    }

    /// A resumable download of `request` into a directory of its own, whose file must hold one version of the
    /// resource: a single repeated byte.
    private static func downloadResuming(_ request: TestRequest, on session: Session) async throws -> Answer {
        let directory = try TemporaryDirectory("hostile-download")
        let destination = directory.url.appending(path: "download.bin")
        let resumption = DownloadResumption(
            retryPolicy: RetryPolicy(maximumAttempts: 5), scheduler: TestScheduler())
        let response = try await session.download(request, to: destination, resumption: resumption).value
        let data = try Data(contentsOf: destination)
        let versions = Set(data)
        guard versions.count == 1 else {
            throw TestServerError(
                "\(request.method) \(request.url.absoluteString) answered \(response.status), and its \(data.count)"
                    + " bytes splice \(versions.count) versions (bytes \(versions.sorted()))")
        }
        return Answer(summary: "\(response.status), \(data.count) bytes of one version")
    }

    /// Reads `events` for ``HostileBounds/eventsWindow``, then cancels, and asks the server how many connections
    /// the stream opened.
    private static func eventsWindow(_ request: TestRequest, on session: Session, server: HostileServer)
        async throws -> Answer
    {
        let reading = Task {
            var count = 0
            for try await _ in session.events(request) {
                count += 1
            }
            return count
        }
        // A measuring window, not a synchronisation: the stream must keep to its reconnection time throughout.
        try await Task.sleep(for: HostileBounds.eventsWindow)
        reading.cancel()
        let events: Int
        switch await reading.result {
        case .success(let count):
            events = count
        case .failure(let error as FetchError) where error.code == .cancelled:
            events = -1
        case .failure(let error):
            throw error
        }
        struct Count: Decodable, Parsable {
            let count: Int
        }
        let run = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""
        let counted: Count = try await Session(transport: URLSessionTransport(configuration: .ephemeral)).perform(
            TestRequest(try server.url("/_count?run=\(run)"), timeout: HostileBounds.timeout))
        let read = events < 0 ? "cancelled" : "ended after \(events) events"
        return Answer(summary: "\(read), \(counted.count) connections", connections: counted.count)
    }

    /// The error's case in a word, with the detail that tells two failures apart.
    static func kind(of error: any Error) -> String {
        guard let error = error as? FetchError else {
            return "not a FetchError: \(type(of: error))"
        }
        switch error.kind {
        case .transport(let urlError, _):
            return "transport(\(urlError.code.rawValue))"
        case .unacceptableStatus(let response):
            return "unacceptableStatus(\(response.status))"
        case .attemptsExhausted(_, let lastError, _):
            return "attemptsExhausted(\(kind(of: lastError)))"
        default:
            return error.code.description
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
