import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `.traceContext()` over the doubles: which trace a call continues, and what its events carry.
@Suite struct TraceContextMiddlewareTests {
    let request = TestRequest("https://api.example.com/users/1")
    static let parent = TraceContext(
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "congo=t61rcWkgMzE")

    /// A mock that answers 503 to the first `failures` requests, then 200, recording the trace each one sent.
    func recordingMock(failures: Int = 0) -> (MockPerformer, Locked<[TraceContext?]>) {
        let sent = Locked<[TraceContext?]>([])
        let mock = MockPerformer { request in
            let count = sent.withLock { sent in
                let parsed = request.headers["traceparent"].flatMap {
                    TraceContext(traceparent: $0, tracestate: request.headers["tracestate"])
                }
                sent.append(parsed)
                return sent.count
            }
            return MockResponse(status: count <= failures ? 503 : 200, data: Data("{}".utf8))
        }
        return (mock, sent)
    }

    func retry() -> RetryingMiddleware {
        .retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: TestScheduler())
    }

    @Test(arguments: [true, false])
    func eachAttemptHasASpanOfItsOwnInOneTraceWhereverTheMiddlewareStands(outsideTheRetry: Bool) throws {
        let (mock, sent) = recordingMock(failures: 2)
        let api = outsideTheRetry ? mock.with(.traceContext(), retry()) : mock.with(retry(), .traceContext())
        let answer = Captured<Result<Data, any Error>>()
        api.perform(request, completion: answer.capture)
        _ = try answer.value?.get()
        let traces = sent.withLock { $0 }.compactMap { $0 }
        try #require(traces.count == 3)
        #expect(Set(traces.map(\.traceID)).count == 1)
        #expect(Set(traces.map(\.spanID)).count == 3)
    }

    @Test func continuesTheCurrentTraceWithANewSpan() throws {
        let parent = try #require(Self.parent)
        let (mock, sent) = recordingMock()
        let answer = Captured<Result<Data, any Error>>()
        TraceContext.$current.withValue(parent) {
            mock.with(.traceContext()).perform(request, completion: answer.capture)
        }
        _ = try answer.value?.get()
        let trace = try #require(sent.withLock { $0 }.first ?? nil)
        #expect(trace.traceID == parent.traceID)
        #expect(trace.spanID != parent.spanID)
        #expect(trace.isSampled == parent.isSampled)
        #expect(trace.state == "congo=t61rcWkgMzE")
    }

    @Test func anExplicitTraceWinsOverTheCurrentOneAndTheRequestsOwnOverBoth() throws {
        let parent = try #require(Self.parent)
        let own = TraceContext(isSampled: false)
        let (mock, sent) = recordingMock()
        let answer = Captured<Result<Data, any Error>>()
        TraceContext.$current.withValue(TraceContext()) {
            let api = mock.with(.traceContext(parent))
            api.perform(request, completion: answer.capture)
            let carrying = TestRequest(
                "https://api.example.com/users/1", headers: ["TraceParent": own.traceparent, "tracestate": "a=1"])
            api.perform(carrying, completion: answer.capture)
        }
        let traces = sent.withLock { $0 }.compactMap { $0 }
        try #require(traces.count == 2)
        #expect(traces[0].traceID == parent.traceID)
        #expect(traces[0].spanID != parent.spanID)
        #expect(traces[1].traceID == own.traceID)
        #expect(traces[1].spanID != own.spanID)
        #expect(!traces[1].isSampled)
        #expect(traces[1].state == "a=1")
    }

    @Test func replacesTheRequestsOwnFieldsInsteadOfAddingToThem() throws {
        let own = TraceContext()
        let fields = Locked<[String]>([])
        let mock = MockPerformer { request in
            fields.withLock {
                $0 = request.headers.values(for: "traceparent") + request.headers.values(for: "tracestate")
            }
            return MockResponse(status: 200)
        }
        let answer = Captured<Result<Data, any Error>>()
        let carrying = TestRequest(
            "https://api.example.com/users/1", headers: ["traceparent": own.traceparent, "tracestate": "a=1,A=2"])
        mock.with(.traceContext()).perform(carrying, completion: answer.capture)
        let sent = fields.withLock { $0 }
        // One traceparent in own's trace; the invalid tracestate is dropped, not sent on.
        try #require(sent.count == 1)
        #expect(TraceContext(traceparent: sent[0])?.traceID == own.traceID)
    }

    @Test func anInvalidTraceparentOnTheRequestStartsANewTrace() throws {
        let (mock, sent) = recordingMock()
        let answer = Captured<Result<Data, any Error>>()
        let carrying = TestRequest(
            "https://api.example.com/users/1",
            headers: ["traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "tracestate": "a=1"])
        mock.with(.traceContext()).perform(carrying, completion: answer.capture)
        let trace = try #require(sent.withLock { $0 }.first ?? nil)
        #expect(trace.traceID != "00000000000000000000000000000000")
        #expect(trace.state == nil)
    }

    @Test func theLaterCallsOfAReconnectingStreamContinueTheFirstCallsTrace() throws {
        let (mock, sent) = recordingMock()
        // A stream or WebSocket that reconnects hands its first call's observers to each later call.
        let observers = EventObservers()
        let api = mock.with(.traceContext())
        for _ in 0..<2 {
            _ = TraceContext.$current.withValue(TraceContext()) {
                api.start(request, naming: request, observers: observers) { _ in }
            }
        }
        let traces = sent.withLock { $0 }.compactMap { $0 }
        try #require(traces.count == 2)
        #expect(traces[0].traceID == traces[1].traceID)
        #expect(traces[0].spanID != traces[1].spanID)
    }

    @Test func anUntracedCallSendsNoTraceFields() throws {
        let (mock, sent) = recordingMock()
        let answer = Captured<Result<Data, any Error>>()
        mock.with(retry()).perform(request, completion: answer.capture)
        #expect(sent.withLock { $0 } == [nil])
    }

    @Test func eventsCarryTheTraceAndAttemptsTheirSpans() throws {
        let parent = try #require(Self.parent)
        let (mock, sent) = recordingMock(failures: 1)
        let events = Captured<FetchEvent>()
        let answer = Captured<Result<Data, any Error>>()
        mock.with(.traceContext(parent), .observe(events.capture), retry()).perform(request, completion: answer.capture)
        _ = try answer.value?.get()
        let spans = sent.withLock { $0 }.compactMap { $0?.spanID }
        try #require(spans.count == 2)
        let seen = events.values.map { ($0.name, $0.trace) }
        #expect(
            seen.map(\.0) == [
                .started, .attemptStarted, .attemptFinished, .retrying, .attemptStarted,
                .attemptFinished, .finished,
            ])
        #expect(seen.allSatisfy { $0.1?.traceID == parent.traceID })
        let attemptSpans = seen.filter { $0.0 == .attemptStarted || $0.0 == .attemptFinished }.map { $0.1?.spanID }
        #expect(attemptSpans == [spans[0], spans[0], spans[1], spans[1]])
        let callSpans = seen.filter { $0.0 == .started || $0.0 == .retrying || $0.0 == .finished }.map { $0.1?.spanID }
        #expect(callSpans == [parent.spanID, parent.spanID, parent.spanID])
    }

    @Test func eventsBeforeTheTraceIsKnownCarryNone() throws {
        let (mock, _) = recordingMock()
        let events = Captured<FetchEvent>()
        let answer = Captured<Result<Data, any Error>>()
        mock.with(.observe(events.capture), .traceContext()).perform(request, completion: answer.capture)
        let seen = events.values
        try #require(seen.map(\.name) == [.started, .attemptStarted, .attemptFinished, .finished])
        #expect(seen[0].trace == nil)
        let trace = try #require(seen[3].trace)
        #expect(seen[1].trace?.traceID == trace.traceID)
        #expect(seen[1].trace?.spanID != trace.spanID)
    }
}

/// `.traceContext()` over each transport against the loopback server, which records the fields each request sent.
@Suite struct TraceContextWireTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    struct Seen: Decodable, Parsable {
        struct Fields: Decodable {
            let traceparent: String?
            let tracestate: String?
        }
        let seen: [Fields]
    }

    static let orders = [true, false]

    @Test(arguments: SessionTransport.allCases, orders)
    func oneTraceAcrossARetriedCallsAttemptsWithANewSpanEach(transport: SessionTransport, outsideTheRetry: Bool)
        async throws
    {
        let session = try makeSession(transport)
        let retry = RetryingMiddleware.retry(RetryPolicy(backoff: Backoff(initialDelay: 0.01, jitter: 0)))
        let api = outsideTheRetry ? session.with(.traceContext(), retry) : session.with(retry, .traceContext())
        let answer: Seen = try await api.perform(TestRequest(server.url("/traced/\(UUID().uuidString)?fail=1")))
        try #require(answer.seen.count == 2)
        let traces = try answer.seen.map { fields in
            let value = try #require(fields.traceparent)
            #expect(value.utf8.count == 55)
            #expect(value.hasPrefix("00-"))
            return try #require(TraceContext(traceparent: value))
        }
        #expect(traces[0].traceID == traces[1].traceID)
        #expect(traces[0].spanID != traces[1].spanID)
        #expect(answer.seen.allSatisfy { $0.tracestate == nil })
    }

    @Test(arguments: SessionTransport.allCases)
    func aHandedInTraceIsContinued(transport: SessionTransport) async throws {
        let parent = try #require(TraceContextMiddlewareTests.parent)
        let api = try makeSession(transport).with(.traceContext())
        let answer: Seen = try await TraceContext.$current.withValue(parent) {
            try await api.perform(TestRequest(server.url("/traced/\(UUID().uuidString)")))
        }
        let fields = try #require(answer.seen.first)
        let trace = try #require(TraceContext(traceparent: fields.traceparent ?? ""))
        #expect(trace.traceID == parent.traceID)
        #expect(trace.spanID != parent.spanID)
        #expect(fields.tracestate == "congo=t61rcWkgMzE")
    }
}
