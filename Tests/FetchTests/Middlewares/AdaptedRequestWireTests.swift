import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's header fields pass the middlewares as written and reach the server and the HAR recording so: apart and
/// in order on libcurl; combined per name as RFC 9110 §5.3 says (RFC 6265 §5.4 for `Cookie`) on URLSession, whose
/// `URLRequest` holds one value per name.
@Suite struct AdaptedRequestWireTests {
    /// `X-A: 1` from the request, `X-B: 2` and `X-A: 3` from two middlewares, and two `Cookie` fields.
    static func stack(over performer: any RequestPerforming) -> any RequestPerforming {
        performer.with(
            .adapt { $0.headers.append("X-B", "2") },
            .adapt { request in
                request.headers.append("X-A", "3")
                request.headers.append("Cookie", "b=2")
            })
    }

    static func request(_ url: URL) -> TestRequest {
        TestRequest(url, headers: HeaderFields([("X-A", "1"), ("Cookie", "a=1")]))
    }

    @Test(arguments: SessionFace.allCases)
    func repeatedFieldsReachTheServerAsTheTransportCanSendThem(face: SessionFace) async throws {
        let server = try TestServer.running()
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let received: [[String]] = try await Self.stack(over: session)
            .perform(Self.request(server.url("/headers/received")))
        if face.isURLSession {
            // One value per name, the repeated ones combined in order.
            let byName = Dictionary(received.map { ($0[0].lowercased(), $0[1]) }, uniquingKeysWith: { $0 + "|" + $1 })
            #expect(byName == ["x-a": "1, 3", "x-b": "2", "cookie": "a=1; b=2"], "\(received)")
        } else {
            #expect(received == [["X-A", "1"], ["Cookie", "a=1; b=2"], ["X-B", "2"], ["X-A", "3"]])
        }
    }

    /// Names keep the request's spelling on every transport, Linux's URLSession included, whose `setValue` would
    /// write `X-Request-Id` and `X-Trace-Id-Lower`; a middleware's field too.
    @Test(arguments: SessionFace.allCases)
    func namesReachTheServerSpelledAsTheRequestSpellsThem(face: SessionFace) async throws {
        let server = try TestServer.running()
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let request = TestRequest(
            server.url("/headers/received"), headers: HeaderFields([("X-Request-ID", "7"), ("x-trace-ID-lower", "8")]))
        let received: [[String]] = try await session.with(.adapt { $0.headers.append("X-API-Key", "k") })
            .perform(request)
        #expect(
            Set(received.map { $0[0] }) == ["X-Request-ID", "x-trace-ID-lower", "X-API-Key"], "\(received)")
    }

    /// Most requests declare no fields: every field a middleware adds is new, repeated names and names that differ
    /// only in case included.
    @Test(arguments: SessionFace.allCases)
    func fieldsAddedToARequestThatDeclaredNoneReachTheServer(face: SessionFace) async throws {
        let server = try TestServer.running()
        let (session, finish) = try face.makeSession()
        defer { finish() }
        let stack = session.with(
            .adapt { request in
                request.headers.append("X-A", "1")
                request.headers.append("X-B", "2")
                request.headers.append("x-a", "3")
            })
        let received: [[String]] = try await stack.perform(TestRequest(server.url("/headers/received")))
        if face.isURLSession {
            let byName = Dictionary(received.map { ($0[0].lowercased(), $0[1]) }, uniquingKeysWith: { $0 + "|" + $1 })
            #expect(byName == ["x-a": "1, 3", "x-b": "2"], "\(received)")
        } else {
            #expect(received == [["X-A", "1"], ["X-B", "2"], ["x-a", "3"]])
        }
    }

    @Test(arguments: SessionFace.allCases)
    func repeatedFieldsSurviveARedirectAndAStream(face: SessionFace) async throws {
        let server = try TestServer.running()
        let (session, finish) = try face.makeSession()
        defer { finish() }
        var target = try #require(URLComponents(url: server.url("/redirect"), resolvingAgainstBaseURL: false))
        target.queryItems = [URLQueryItem(name: "to", value: "/headers/received")]
        let redirected = Self.request(try #require(target.url))
        let stack = Self.stack(over: session)
        let called: [[String]] = try await stack.perform(redirected)
        var streamed = Data()
        for try await chunk in try await stack.stream(Self.request(server.url("/headers/received"))) {
            streamed.append(chunk)
        }
        let expected: [[String]] =
            face.isURLSession
            ? [["X-A", "1, 3"], ["X-B", "2"], ["Cookie", "a=1; b=2"]]
            : [["X-A", "1"], ["Cookie", "a=1; b=2"], ["X-B", "2"], ["X-A", "3"]]
        for received in [called, try JSONDecoder().decode([[String]].self, from: streamed)] {
            if face.isURLSession {
                // Foundation's order of names and spelling; the values of each name combined in order.
                let byName = received.map { [$0[0].lowercased(), $0[1]] }.sorted { $0[0] < $1[0] }
                #expect(byName == expected.map { [$0[0].lowercased(), $0[1]] }.sorted { $0[0] < $1[0] })
            } else {
                #expect(received == expected)
            }
        }
    }

    @Test func theURLRequestDecidesWhereItSaysOtherwiseThanTheDeclaredFields() throws {
        let declared = HeaderFields([("X-A", "1"), ("Authorization", "Bearer t"), ("X-A", "3"), ("X-B", "2")])
        var urlRequest = URLRequest(url: try #require(URL(string: "https://api.example.com/")))
        urlRequest.setValue("1, 3", forHTTPHeaderField: "X-A")  // their combination: sent apart
        urlRequest.setValue("changed", forHTTPHeaderField: "X-B")  // a request's own makeURLRequest() changed it
        urlRequest.setValue("built", forHTTPHeaderField: "X-Built")  // only the URLRequest has it
        // No Authorization: a redirect to another origin dropped it.
        let fields = Exchange.fields(declared: declared, in: urlRequest).map { "\($0.name): \($0.value)" }
        #expect(fields == ["X-A: 1", "X-A: 3", "X-B: changed", "X-Built: built"])
    }

    @Test func theHARRecordingKeepsTheFieldsAsWritten() throws {
        let directory = try TemporaryDirectory("adapted-har")
        let file = directory.url.appending(path: "calls.har")
        let mock = MockPerformer { _ in MockResponse(status: 204) }
        let result = Captured<Result<Response, any Error>>()
        Self.stack(over: try mock.with(.record(to: file)))
            .perform(Self.request(try #require(URL(string: "https://api.example.com/x"))), completion: result.capture)
        _ = try #require(try result.value?.get())
        let entry = try #require(try HAR(contentsOf: file).log.entries.first)
        let fields = entry.request.headers.map { "\($0.name): \($0.value)" }
        // Cookie values are secrets: redacted, each in its own place.
        #expect(fields == ["X-A: 1", "Cookie: REDACTED", "X-B: 2", "X-A: 3", "Cookie: REDACTED"])
    }
}

/// The two ways `Exchange.fields(declared:in:)` reads the fields a `URLRequest` sends agree.
@Suite struct ExchangeFieldsTests {
    /// Random declared fields (repeated names, names differing in case, cookies) against a `URLRequest` that sends
    /// them combined, changed, dropped or joined by fields of its own.
    @Test func scanningAndTablesReadTheSameFields() {
        var random = SplitMix(seed: 0x5EED)
        let names = ["X-A", "x-a", "X-B", "Cookie", "Accept", "Authorization", "X-Long-Name-\(1)", "ETag"]
        for _ in 0..<2_000 {
            var declared: [(name: String, value: String)] = []
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                declared.append(
                    (names.randomElement(using: &random) ?? "X-A", "v\(Int.random(in: 0...3, using: &random))"))
            }
            let fields = HeaderFields(declared)
            var sent: [String: String] = [:]
            for (name, value) in fields.combined {
                switch Int.random(in: 0...5, using: &random) {
                case 0: continue  // dropped (a redirect to another origin)
                case 1: sent[name] = "changed"  // the request's own makeURLRequest
                default: sent[name] = value
                }
            }
            for index in 0..<Int.random(in: 0...3, using: &random) {
                sent["X-Built-\(index)"] = "b\(index)"
            }
            let scanned = Exchange.fieldsByScanning(declared: fields, sent: sent).map { "\($0.name): \($0.value)" }
            let tabled = Exchange.fieldsByTable(declared: fields, sent: sent).map { "\($0.name): \($0.value)" }
            #expect(scanned == tabled, "declared \(declared), sent \(sent)")
        }
    }
}
