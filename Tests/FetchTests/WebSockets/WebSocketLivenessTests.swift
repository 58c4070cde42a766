import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A WebSocket against a server that stops answering, end to end on each transport: the Python `websockets` peer in
/// a process of the test's own, frozen with SIGSTOP and let go with SIGCONT. The keepalive notices the freeze, a
/// reconnect policy reopens once the server answers again, and no send or ping waits past its task or deadline.
/// Timed end to end against servers that freeze: beside other suites (Thread Sanitizer's, coverage's) the process's
/// one libcurl WebSocket loop thread, busy with their messages, held pongs past these tests' timeouts, so the suite
/// runs alone, in `.ci/run`'s liveness step.
@Suite(
    .serialized,
    .enabled(
        if: HeavyTests.areEnabled,
        "timed end to end against a frozen server: run alone with FETCH_HEAVY_TESTS=1 (.ci/run's liveness step)"))
struct WebSocketLivenessTests {
    struct Socket: Request {
        let url: URL
    }

    /// The socket's own events, in order: opened, closed, dropped, reconnecting.
    final class Events: Sendable {
        private let state = Locked<[FetchEvent]>([])
        private let stream: AsyncStream<FetchEvent>
        private let continuation: AsyncStream<FetchEvent>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream()
        }

        func record(_ event: FetchEvent) {
            guard [.webSocketOpened, .webSocketClosed, .webSocketDropped, .reconnecting].contains(event.name) else {
                return
            }
            state.withLock { $0.append(event) }
            continuation.yield(event)
        }

        var all: [FetchEvent] {
            state.withLock { $0 }
        }

        /// Waits for the next event named `name`.
        func next(_ name: FetchEvent.Name) async -> FetchEvent? {
            for await event in stream where event.name == name {
                return event
            }
            return nil
        }
    }

    /// The suite's own server, which a test freezes and lets go (thawed when each test is done); started once, since
    /// starting a process blocks the thread.
    static let frozen = Result { try WebSocketsServer.dedicated() }

    /// A server of the keepalive's test alone: one that other tests filled with megabytes to echo would answer its
    /// pings late.
    static let keptAlive = Result { try WebSocketsServer.dedicated() }

    let server: WebSocketsServer

    init() throws {
        server = try Self.frozen.get()
    }

    private func open(
        _ transport: SessionTransport, configuration: WebSocket.Configuration, events: Events = Events(),
        on server: WebSocketsServer? = nil
    ) async throws -> WebSocket {
        try await makeSession(transport).with(.observe { events.record($0) })
            .webSocket(Socket(url: (server ?? self.server).url("/echo")), configuration: configuration)
    }

    /// 1 MiB that permessage-deflate cannot shrink (a xorshift sequence), so that sending it fills socket buffers
    /// whether or not the connection compresses: a run of one byte would go out as a few bytes and never block.
    static let incompressible: Data = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }()

    /// Fills the frozen server's socket buffers with 1 MiB messages until a send stays blocked for a while, in a task
    /// the test then cancels or lets time out; returns that task.
    private func blockedSend(on socket: WebSocket) async throws -> Task<Void, any Error> {
        let sent = Locked(0)
        let task = Task {
            let chunk = Self.incompressible
            for _ in 0..<256 {
                try await socket.send(chunk)
                sent.withLock { $0 += 1 }
            }
        }
        // Loopback buffers a few MiB; a send that has not completed for 1 s is blocked.
        var last = -1
        for _ in 0..<60 {
            try await Task.sleep(for: .seconds(1))
            let now = sent.withLock { $0 }
            if now == last {
                return task
            }
            last = now
        }
        task.cancel()
        throw TestServerError("the frozen server took 256 MiB without blocking a send")
    }

    /// `body`'s value, or a failure once `seconds` have passed without it; `body` is cancelled then, and not waited
    /// for, so that a wait that ignores cancellation fails the test instead of hanging it.
    private func within<Value: Sendable>(
        _ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let outcome = Locked<CheckedContinuation<Value, any Error>?>(nil)
        let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
            outcome.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        defer {
            work?.cancel()
            timer?.cancel()
        }
        return try await withCheckedThrowingContinuation { continuation in
            outcome.withLock { $0 = continuation }
            work = Task { finish(await Result { try await body() }) }
            timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                finish(.failure(TestServerError("\(what) took more than \(seconds) s")))
            }
        }
    }

    /// Reads `socket` until `message` arrives (the echoes of what was sent before it come first).
    private func read(until message: WebSocketMessage, on socket: WebSocket) async throws {
        let arrived = try await within(30, "the echo of \(message)") {
            for try await echoed in socket where echoed == message {
                return true
            }
            return false
        }
        #expect(arrived, "the sequence ended before \(message) came back")
    }

    /// Timed end to end against a server that freezes: beside the rest of the suite (CI's coverage run most of all)
    /// the process's one libcurl WebSocket loop thread, busy with other tests' messages, held pongs past the timeout,
    /// so it runs on its own, in `.ci/run`'s liveness step.
    @Test(
        .timeLimit(.minutes(1)),
        .enabled(
            if: HeavyTests.areEnabled,
            "timed end to end against a frozen server: run alone with FETCH_HEAVY_TESTS=1 (.ci/run's liveness step)"),
        arguments: SessionTransport.allCases)
    func aFrozenServerIsDroppedByTheKeepaliveAndReopenedOnceItAnswers(on transport: SessionTransport) async throws {
        let server = try Self.keptAlive.get()
        defer { server.thaw() }
        let events = Events()
        let hooks = Locked(0)
        var configuration = WebSocket.Configuration()
        // A pong timeout with room for a loaded CI machine (the whole suite, or Thread Sanitizer, on two cores once
        // held a pong past 2 s, and the connection dropped before the test froze the server).
        configuration.pingInterval = 0.5
        configuration.pongTimeout = 5
        configuration.reconnectPolicy = ReconnectPolicy(
            backoff: Backoff(initialDelay: 0.1, maximumDelay: 0.5, jitter: 0), maximumFailuresInARow: nil)
        configuration.onReconnect = { socket in
            hooks.withLock { $0 += 1 }
            try await socket.send("subscribe")
        }
        let socket = try await open(transport, configuration: configuration, events: events, on: server)
        try await socket.send("hello")
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))

        let frozenAt = ContinuousClock.now
        server.freeze()
        let reading = Task {
            var iterator = socket.makeAsyncIterator()
            return try await iterator.next()
        }
        defer { reading.cancel() }
        let dropped = try await within(20, "noticing the frozen server") { await events.next(.webSocketDropped) }
        // The ping interval plus the pong timeout is 5.5 s; the rest is room for a loaded CI machine.
        #expect(frozenAt.duration(to: .now) < .seconds(20))
        guard case .webSocketClosed(1006, let reason, _) = dropped?.error?.fetchKind else {
            Issue.record("expected a drop (1006), got \(String(describing: dropped?.error))")
            return
        }
        #expect(reason.contains("no pong came within 5 s"))

        server.thaw()
        let first = try await within(30, "the reopened connection's first message") { try await reading.value }
        #expect(first == .text("subscribe"))
        // The events of the freeze, once each. (On a loaded machine the new connection may miss a pong in turn: its
        // own drop and reopening follow, and the hook runs once per reopening.)
        let seen = events.all
        #expect(seen.prefix(4).map(\.name) == [.webSocketOpened, .webSocketDropped, .reconnecting, .webSocketOpened])
        #expect(seen.prefix(4).map(\.attempt) == [1, nil, 1, 2])
        #expect(seen.count > 2 && seen[2].delay == 0.1)
        #expect(hooks.withLock { $0 } == seen.filter { $0.name == .webSocketOpened }.count - 1)
        socket.close()
        #expect(events.all.last?.name == .webSocketClosed)
        #expect(events.all.last?.closedByServer == false)
    }

    @Test(.timeLimit(.minutes(1)), arguments: SessionTransport.allCases)
    func aHealthyIdleConnectionIsKeptAliveAndNotDropped(on transport: SessionTransport) async throws {
        defer { server.thaw() }
        let events = Events()
        var configuration = WebSocket.Configuration()
        configuration.pingInterval = 0.1
        configuration.pongTimeout = 5
        let socket = try await open(transport, configuration: configuration, events: events)
        try await Task.sleep(for: .seconds(1))  // about ten keepalive pings, each answered
        try await socket.send("still here")
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("still here"))
        #expect(events.all.map(\.name) == [.webSocketOpened])
        socket.close()
    }

    @Test(.timeLimit(.minutes(1)), arguments: SessionTransport.allCases)
    func aSendBlockedByAFrozenServerEndsWhenItsTaskIsCancelledAndTheConnectionStaysOpen(
        on transport: SessionTransport
    ) async throws {
        defer { server.thaw() }
        var configuration = WebSocket.Configuration()
        configuration.pingInterval = nil
        let socket = try await open(transport, configuration: configuration)
        server.freeze()
        let blocked = try await blockedSend(on: socket)
        let cancelledAt = ContinuousClock.now
        blocked.cancel()
        let outcome = try await within(10, "the cancelled send") { await blocked.result }
        #expect(cancelledAt.duration(to: .now) < .seconds(5))
        guard case .failure(let error) = outcome, case .cancelled = error.fetchKind else {
            Issue.record("expected the send to throw cancelled, got \(outcome)")
            return
        }
        // Only the wait ended: once the server reads again, the connection carries messages both ways.
        server.thaw()
        try await socket.send("after")
        try await read(until: .text("after"), on: socket)
        socket.close()
    }

    @Test(.timeLimit(.minutes(1)), arguments: SessionTransport.allCases)
    func aSendBlockedByAFrozenServerEndsAtItsDeadline(on transport: SessionTransport) async throws {
        defer { server.thaw() }
        var configuration = WebSocket.Configuration()
        configuration.pingInterval = nil
        configuration.sendTimeout = 0.5
        let socket = try await open(transport, configuration: configuration)
        server.freeze()
        let chunk = Self.incompressible
        var timedOutAfter: Duration?
        for _ in 0..<256 {
            let start = ContinuousClock.now
            do {
                try await socket.send(chunk)
            } catch let error as FetchError where error.code == .timedOut {
                timedOutAfter = start.duration(to: .now)
                #expect("\(error)".contains("timed out: the message was not sent (the send timeout) within 0.5 s"))
                break
            }
        }
        let waited = try #require(timedOutAfter, "no send timed out against a frozen server")
        #expect(waited >= .seconds(0.4) && waited < .seconds(5))
        server.thaw()
        try await socket.send("after")
        try await read(until: .text("after"), on: socket)
        socket.close()
    }

    @Test(.timeLimit(.minutes(1)), arguments: SessionTransport.allCases)
    func aPingToAFrozenServerEndsAtItsDeadlineOrWhenCancelledAndTheConnectionStaysOpen(
        on transport: SessionTransport
    ) async throws {
        defer { server.thaw() }
        var configuration = WebSocket.Configuration()
        configuration.pingInterval = nil
        configuration.sendTimeout = 0.5
        let socket = try await open(transport, configuration: configuration)
        server.freeze()
        let start = ContinuousClock.now
        await #expect {
            try await socket.ping()
        } throws: { error in
            (error as? FetchError)?.code == .timedOut && "\(error)".contains("no pong answered the ping")
        }
        #expect(start.duration(to: .now) < .seconds(5))

        let pinging = Task { try await socket.ping() }
        pinging.cancel()
        let outcome = try await within(10, "the cancelled ping") { await pinging.result }
        guard case .failure(let error) = outcome, case .cancelled = error.fetchKind else {
            Issue.record("expected the ping to throw cancelled, got \(outcome)")
            return
        }
        server.thaw()
        try await socket.ping()  // the pongs of the frozen time come, and the connection is still open
        socket.close()
    }

    @Test(.timeLimit(.minutes(1)), arguments: SessionTransport.allCases)
    func closingEndsABlockedSendAtOnceNamingTheClientsClose(on transport: SessionTransport) async throws {
        defer { server.thaw() }
        var configuration = WebSocket.Configuration()
        configuration.pingInterval = nil
        let socket = try await open(transport, configuration: configuration)
        server.freeze()
        let blocked = try await blockedSend(on: socket)
        socket.close(code: .normalClosure, reason: "giving up")
        let outcome = try await within(2, "the send after close") { await blocked.result }
        guard case .failure(let error) = outcome, case .webSocketClosed(1000, let reason, _) = error.fetchKind else {
            Issue.record("expected webSocketClosed 1000, got \(outcome)")
            return
        }
        #expect(reason.contains("this client closed the connection with 1000"))
        #expect(reason.contains("giving up"))
    }

    @Test(.timeLimit(.minutes(1)), arguments: SessionTransport.allCases)
    func aSendAfterACancelledReadNamesTheClientsCloseWith1001(on transport: SessionTransport) async throws {
        defer { server.thaw() }
        let socket = try await open(transport, configuration: WebSocket.Configuration())
        let reading = Task {
            for try await _ in socket {}
        }
        reading.cancel()
        _ = await reading.result
        await #expect {
            try await socket.send("too late")
        } throws: { error in
            guard case .webSocketClosed(let code, let reason, _) = error.fetchKind else {
                return false
            }
            return code == 1001 && reason.contains("this client closed the connection with 1001")
                && reason.contains("cancelled") && reason.contains("was not sent")
        }
    }
}
