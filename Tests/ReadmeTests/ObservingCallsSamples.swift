import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(os)
    import os
#endif

// The samples of ObservingCalls.md, and of TraceContext's and `.traceContext()`'s doc comments.

enum ObservingCallsSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func observe(session: Session) {
        // DOC-BEGIN
        let api = session.with(
            .traceContext(),
            .observe { event in
                guard event.name == .attemptFinished, let metrics = event.metrics else {
                    return
                }
                print(event.request.url, metrics.timeToFirstByte ?? -1, metrics.isReusedConnection ?? false)
            },
            .retry())
        // DOC-END
        _ = api
    }

    static func handOn(incoming: HeaderFields, api: Pipeline) async throws {
        // DOC-BEGIN
        let parent = TraceContext(traceparent: incoming["traceparent"] ?? "", tracestate: incoming["tracestate"])
        let user: User = try await TraceContext.$current.withValue(parent) {
            try await api.perform(GetUser(id: 1))
        }
        // DOC-END
        _ = user
    }

    static func middleware(session: Session, incoming: TraceContext) async throws {
        // DOC-BEGIN
        let api = session.with(.traceContext(), .retry())
        let user: User = try await TraceContext.$current.withValue(incoming) {
            try await api.perform(GetUser(id: 1))
        }
        // DOC-END
        _ = user
    }
}

/// A stand-in for the part of swift-log's `Logger` that the sample uses, so that it compiles without swift-log; in
/// an app, swift-log's own `Logger` takes the same calls.
struct SwiftLogStandIn {
    struct Logger: Sendable {
        typealias Metadata = [String: String]
        let lines = Captured<String>()

        func info(_ message: String, metadata: Metadata? = nil) {
            let fields = (metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.capture(([message] + fields).joined(separator: " "))
        }
    }

    // DOC-BEGIN
    func logCalls(of performer: any RequestPerforming, to logger: Logger) -> Pipeline {
        performer.with(
            .traceContext(),
            .observe { event in
                guard event.name == .attemptFinished || event.name == .failed else {
                    return
                }
                var metadata: Logger.Metadata = ["attempt": "\(event.attempt ?? 0)"]
                if let trace = event.trace {
                    metadata["trace_id"] = "\(trace.traceID)"
                    metadata["span_id"] = "\(trace.spanID)"
                }
                if let firstByte = event.metrics?.timeToFirstByte {
                    metadata["first_byte_ms"] = "\(firstByte * 1000)"
                }
                logger.info("\(event)", metadata: metadata)
            })
    }
    // DOC-END

}

@Suite struct ObservingCallsSampleTests {
    @Test func theSwiftLogBridgeLogsEachAttemptWithItsTrace() throws {
        let logger = SwiftLogStandIn.Logger()
        let mock = MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }
        let user = Captured<Result<DocFixtures.User, any Error>>()
        SwiftLogStandIn().logCalls(of: mock, to: logger).perform(DocFixtures.GetUser(id: 1), completion: user.capture)
        _ = try user.value?.get()
        let line = try #require(logger.lines.values.first)
        #expect(logger.lines.values.count == 1)
        #expect(line.contains("attempt=1"))
        #expect(line.wholeMatch(of: #/.* span_id=[0-9a-f]{16} trace_id=[0-9a-f]{32}/#) != nil, "\(line)")
    }
}

// DOC-BEGIN
#if canImport(os)
    func logCallsToOSLog(of session: Session) -> Pipeline {
        let log = Logger(subsystem: "com.example.app", category: "http")
        return session.with(
            .observe { event in
                log.info("\(event.description, privacy: .public)")
            })
    }
#endif
// DOC-END
