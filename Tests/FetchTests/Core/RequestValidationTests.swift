import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request with its own `makeURLRequest()`, which sets the method and one header field as given, unchecked.
private struct HandMadeRequest: Request {
    let url: URL
    var rawMethod: String?
    var field: (name: String, value: String)?

    func makeURLRequest() throws -> URLRequest {
        var urlRequest = URLRequest(url: url)
        if let rawMethod {
            urlRequest.httpMethod = rawMethod
        }
        if let field {
            urlRequest.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return urlRequest
    }
}

/// Methods and header fields that would split a request or inject a header never reach the wire: whatever built the
/// `URLRequest` (the default `makeURLRequest()`, a request's own, an adapter), on every face of `Session`, for every
/// kind of call (data, stream, download, upload, WebSocket), the call fails with `invalidRequest` naming the field and
/// the character, and a raw listener that records every byte sees no connection at all.
@Suite struct RequestValidationTests {
    /// A request's way to the wire, and what it carries that cannot be sent.
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        /// What the refusal must say: the field, and the character quoted.
        let says: [String]
        let make: @Sendable (URL) -> any Request
        /// Adapters the session runs before the transport.
        var adapters: [InterceptingMiddleware] = []
    }

    static let injection = "GET\r\nX-Injected:1\r\n\r\nGET"

    static let cases: [Case] = [
        Case(
            description: "a method with CR LF", says: ["the method", #"it contains "\r""#],
            make: { TestRequest($0, method: HTTPMethod(rawValue: injection)) }),
        Case(
            description: "a method with a space", says: ["the method", #"it contains " ""#],
            make: { TestRequest($0, method: "GET /other") }),
        Case(
            description: "an empty method", says: ["the method", "it is empty"],
            make: { TestRequest($0, method: "") }),
        Case(
            description: "a method with CR LF from a request's own makeURLRequest()",
            says: ["the method", #"it contains "\r""#],
            make: { HandMadeRequest(url: $0, rawMethod: "POST\r\nX-Injected: 1\r\n") }),
        Case(
            description: "a header name with CR LF from a request's own makeURLRequest()",
            says: ["header name", #"it contains "\r""#],
            make: { HandMadeRequest(url: $0, field: (name: "X-A\r\nX-Injected", value: "1")) }),
        Case(
            description: "a header name with CR LF from an adapter", says: ["header name", #"it contains "\r""#],
            make: { TestRequest($0) },
            adapters: [.adapt { $0.headers.append("X-A\r\nX-Injected", "1") }]),
        Case(
            description: "a method with CR LF from an adapter", says: ["the method", #"it contains "\r""#],
            make: { TestRequest($0) },
            adapters: [.adapt { $0.method = HTTPMethod(rawValue: "GET\r\nX-Injected: 1\r\n") }]),
    ]

    /// Each kind of call, made on `session` for `request`.
    static func calls(
        on session: any RequestPerforming, _ request: any Request, directory: URL
    ) throws -> [(String, @Sendable () async throws -> Void)] {
        let file = directory.appending(path: "upload.txt")
        try Data("upload".utf8).write(to: file)
        let destination = directory.appending(path: "download.bin")
        return [
            ("perform", { let _: Response = try await session.perform(request) }),
            ("stream", { _ = try await session.stream(request) }),
            ("download", { _ = try await session.download(request, to: destination).value }),
            ("upload", { _ = try await session.upload(request, fromFile: file, as: Response.self).value }),
        ]
    }

    @Test(arguments: SessionFace.allCases)
    func nothingThatWouldSplitARequestReachesTheWire(on face: SessionFace) async throws {
        let listener = try RecordingListener()
        defer { listener.stop() }
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let directory = try TemporaryDirectory("request-validation")
        let url = listener.baseURL.appending(path: "target")
        for testCase in Self.cases {
            let performer = testCase.adapters.reduce(session as any RequestPerforming) { $0.with($1) }
            for (kind, call) in try Self.calls(on: performer, testCase.make(url), directory: directory.url) {
                try await expectRefusal(of: testCase, kind, call)
            }
        }
        #expect(listener.connections.isEmpty, "reached the wire: \(listener.allText.debugDescription)")

        // The listener sees what is sent: a request that can be sent arrives, alone.
        let response: Response = try await session.perform(TestRequest(listener.baseURL.appending(path: "sentinel")))
        #expect(response.status == 200)
        #expect(listener.connections.count == 1)
        #expect(listener.allText.hasPrefix("GET /sentinel HTTP/1.1\r\n"))
        #expect(!listener.allText.contains("Injected"))
    }

    /// Foundation on Linux drops a value with CR or LF when it is set (`URLRequest` never holds it, so there is
    /// nothing to check): the request goes without that field. Wherever `URLRequest` keeps one, the check refuses
    /// it. Either way nothing is injected.
    @Test(arguments: SessionFace.allCases)
    func aHeaderValueWithALineBreakFromARequestsOwnURLRequestInjectsNothing(on face: SessionFace) async throws {
        let listener = try RecordingListener()
        defer { listener.stop() }
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let request = HandMadeRequest(
            url: listener.baseURL.appending(path: "value"), field: (name: "X-Note", value: "1\r\nX-Injected: 1"))
        do {
            let _: Response = try await session.perform(request)
        } catch let error as FetchError where error.code == .invalidRequest {
            guard case .invalidRequest(let reason) = error.kind else {
                return
            }
            #expect(reason.contains("the value of header X-Note"), "\(reason)")
        }
        #expect(!listener.allText.contains("X-Injected"), "\(listener.allText.debugDescription)")
    }

    @Test(arguments: SessionFace.allCases)
    func noWebSocketHandshakeThatWouldInjectAHeaderReachesTheWire(on face: SessionFace) async throws {
        let listener = try RecordingListener()
        defer { listener.stop() }
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let url = try #require(URL(string: "ws://127.0.0.1:\(listener.baseURL.port ?? 0)/socket"))
        let handMade = Self.cases.filter { $0.description.contains("CR LF") }
        for testCase in handMade {
            let performer = testCase.adapters.reduce(session as any RequestPerforming) { $0.with($1) }
            let request = testCase.make(url)
            try await expectRefusal(of: testCase, "webSocket") { _ = try await performer.webSocket(request) }
        }
        #expect(listener.connections.isEmpty, "reached the wire: \(listener.allText.debugDescription)")
    }

    private func expectRefusal(
        of testCase: Case, _ kind: String, _ call: @Sendable () async throws -> Void
    ) async throws {
        do {
            try await call()
            Issue.record("\(kind) with \(testCase) was sent")
        } catch let error as FetchError where error.code == .invalidRequest {
            guard case .invalidRequest(let reason) = error.kind else {
                return
            }
            for phrase in testCase.says {
                #expect(reason.contains(phrase), "\(kind) with \(testCase): \(reason.debugDescription)")
            }
            #expect(reason.contains("127.0.0.1"), "\(kind) with \(testCase) names no request: \(reason)")
            #expect(!reason.contains("\r\n"), "\(kind) with \(testCase): the message has a raw line break")
        } catch {
            Issue.record("\(kind) with \(testCase): expected invalidRequest, got \(error)")
        }
    }
}
