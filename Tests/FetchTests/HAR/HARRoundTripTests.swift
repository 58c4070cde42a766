import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records real exchanges with the loopback test server into a HAR file, checks the file with an independent reader,
/// and replays it offline through `MockPerformer(replaying:)` to the same parsed results.
@Suite struct HARRoundTripTests {
    /// What `/requests/echo` saw.
    struct Echo: Decodable, Parsable, Equatable {
        let method: String
        let target: String
        let query: [[String]]
        let headers: [String: String]
        let bodySize: Int
        let body: String
    }

    /// One exchange of the session: how to make its request (again, for the replay), and how to parse it.
    struct Exchange: Sendable {
        let name: String
        let makeRequest: @Sendable (TestServer) -> APIRequest
        /// How the replay of the request through a mock differs from the live response, parsed the same way;
        /// `nil` when it does not. The mock must complete before `perform` returns.
        let compare: @Sendable (Response, MockPerformer, APIRequest) -> String?
        /// The live response parsed, described.
        let describe: @Sendable (Response) -> String

        init<T: Parsable & Equatable & Sendable>(
            _ name: String, as type: T.Type, errorParser: (any ErrorParsing)? = nil,
            _ makeRequest: @escaping @Sendable (TestServer) -> APIRequest
        ) {
            self.name = name
            self.makeRequest = makeRequest
            describe = { response in "\(T.parse(response: response, errorParser: errorParser))" }
            compare = { response, mock, request in
                let live = T.parse(response: response, errorParser: errorParser)
                let replayed = Captured<Result<T, any Error>>()
                mock.perform(request, errorParser: errorParser, completion: replayed.capture)
                switch (live, replayed.value) {
                case (_, nil):
                    return "the replay did not complete synchronously"
                case (.success(let liveValue), .success(let replayedValue)?) where liveValue == replayedValue:
                    return nil
                case (.failure(let liveError), .failure(let replayedError)?) where "\(liveError)" == "\(replayedError)":
                    return nil
                case (_, let replayed?):
                    return "live: \(live), replayed: \(replayed)"
                }
            }
        }
    }

    static let token = "tok-9c1e5a77b2f04e3d"

    static let exchanges: [Exchange] = [
        Exchange("GET with a query", as: Echo.self) { server in
            APIRequest(server.url("/requests/echo/search")).query("q", "swift & http").query("page", "2")
        },
        Exchange("POST JSON", as: Echo.self) { server in
            APIRequest(server.url("/requests/echo/items"), method: .post).jsonBody(["name": "Ada", "team": "é☕︎"])
        },
        Exchange("a form", as: Echo.self) { server in
            APIRequest(server.url("/requests/echo/login"), method: .post).formBody(["user": "ada", "remember": "yes"])
        },
        Exchange("a multipart upload", as: Echo.self) { server in
            APIRequest(server.url("/requests/echo/upload"), method: .post).multipartBody(
                MultipartBody().field("title", "dots").file(
                    "image", data: Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]), filename: "dots.png",
                    contentType: "image/png"))
        },
        Exchange("a 404 with an error body", as: User.self, errorParser: DecodableErrorParser<APIError>()) { server in
            APIRequest(server.url("/users/999")).header("Authorization", "Bearer \(token)")
        },
        Exchange("a binary body", as: Data.self) { server in
            APIRequest(server.url("/bytes/300")).header("Authorization", "Bearer \(token)")
        },
        Exchange("a redirect", as: User.self) { server in
            APIRequest(server.url("/redirect")).query("to", "/users/1").header("Authorization", "Bearer \(token)")
        },
    ]

    let server: TestServer
    let file: URL

    init() throws {
        server = try TestServer.running()
        file = FileManager.default.temporaryDirectory.appendingPathComponent("round-trip-\(UUID().uuidString).har")
    }

    /// Sends every exchange through a real `Session` and records it; returns the live responses.
    func record() async throws -> [Response] {
        let session = makeSession()
        let writer = try HARWriter(file: file)
        var responses: [Response] = []
        for exchange in Self.exchanges {
            let request = exchange.makeRequest(server)
            let started = Date()
            let clock = ContinuousClock.now
            let response: Response = try await session.perform(request)
            let elapsed = clock.duration(to: .now)
            try writer.append(
                HAR.Entry(request: request, response: response, startedDateTime: started, timings: .total(elapsed)))
            responses.append(response)
        }
        return responses
    }

    @Test func replaysARecordedSessionOfflineToTheSameParsedResultsSynchronously() async throws {
        let live = try await record()
        #expect(
            Self.exchanges[4].describe(live[4])
                == #"failure(FetchTests.APIError(error: true, reason: "no user with id 999"))"#)
        #expect(Self.exchanges[6].describe(live[6]).hasPrefix("success(FetchTests.User(id: 1, name: \"Ada Lovelace\""))

        let mock = try MockPerformer(replaying: file)
        for (index, exchange) in Self.exchanges.enumerated() {
            // A new request value, as a test would build it: a multipart body gets a new boundary.
            let difference = exchange.compare(live[index], mock, exchange.makeRequest(server))
            #expect(difference == nil, "\(exchange.name)")
        }
    }

    @Test func theRecordedFileIsValidHAR12ByAnIndependentReader() async throws {
        _ = try await record()
        let verdict = try HARValidator.check(file)
        #expect(verdict.isValid, "\(verdict.output)")
        #expect(verdict.output.contains("valid HAR 1.2: \(Self.exchanges.count) entries"))

        let archive = try HAR(contentsOf: file)
        let entries = archive.log.entries
        try #require(entries.count == Self.exchanges.count)
        #expect(entries.map(\.response.status) == [200, 200, 200, 200, 404, 200, 200])
        #expect(entries.map(\.request.method) == ["GET", "POST", "POST", "POST", "GET", "GET", "GET"])
        #expect(entries[0].request.queryString.map(\.name) == ["q", "page"])
        #expect(entries[1].request.postData?.text?.contains(#""name":"Ada""#) == true)
        #expect(entries[2].request.postData?.mimeType == "application/x-www-form-urlencoded")
        #expect(entries[3].request.postData?.mimeType.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(entries[4].response.content.text == #"{"error": true, "reason": "no user with id 999"}"#)
        #expect(entries[5].response.content.encoding == "base64")
        #expect(entries[5].response.content.size == 300)
        #expect(entries[6].comment?.hasSuffix("/users/1 after redirects.") == true)
    }

    @Test func theTokenSentInAuthorizationAppearsNowhereInTheFile() async throws {
        _ = try await record()
        let bytes = try Data(contentsOf: file)
        #expect(bytes.range(of: Data(Self.token.utf8)) == nil)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""value" : "REDACTED""#))
    }
}
