import Fetch
import Foundation
import Testing

@testable import FetchExample

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `demo_server.py` against the embedded ``DemoBackend``: the same requests get the same statuses and bodies, so
/// `--server` and the default run show the same API.
@Suite struct DemoServerTests {
    /// One request to send to both backends.
    struct Case: Sendable, CustomStringConvertible {
        enum Authorization: Sendable {
            case none, bearer, forgedBearer
            case basic(String)
        }

        let method: HTTPMethod
        let path: String
        var authorization = Authorization.bearer
        var body: String?
        /// Whether the bodies must match too, not only the statuses (decoding errors are worded differently).
        var comparesBodies = true

        var description: String { "\(method) \(path)" }
    }

    /// `POST api/purchases` of an order with these items and fields.
    static func order(_ items: String, _ fields: String = #""orderedAt":"2026-11-30T09:00:00Z""#) -> Case {
        Case(method: .post, path: "api/purchases", body: #"{"items":["# + items + "]," + fields + "}")
    }

    static let cases: [Case] = [
        Case(method: .post, path: "api/users/login", authorization: .none),
        Case(method: .post, path: "api/users/login", authorization: .basic("YWRhOnNlY3JldA==")),
        Case(method: .post, path: "api/users/login", authorization: .basic("not base64!")),
        Case(method: .get, path: "api/employees", authorization: .none),
        Case(method: .get, path: "api/employees", authorization: .forgedBearer),
        Case(method: .get, path: "api/announcements"),
        Case(method: .get, path: "api/employees"),
        Case(method: .get, path: "api/events"),
        Case(method: .get, path: "api/products"),
        Case(method: .get, path: "api/purchases"),
        Case(method: .get, path: "api/users/5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01"),
        Case(method: .get, path: "api/users/00000000-0000-0000-0000-000000000000"),
        Case(method: .get, path: "api/users/ada"),
        Case(method: .get, path: "api/payroll"),
        Case(method: .put, path: "api/employees"),
        Case(method: .get, path: "api/users/login"),
        order(#"{"productID":1,"quantity":3}"#),
        order(""),
        order(#"{"productID":99,"quantity":1}"#),
        order(#"{"productID":1,"quantity":1000}"#),
        order(#"{"productID":1,"quantity":1}"#, #""orderedAt":"soon""#),
        order(#"{"productID":1,"quantity":1}"#, #""deliverBy":"2026-12-01T00:00:00Z""#),
        order(
            #"{"productID":1,"quantity":1}"#, #""orderedAt":"2026-11-30T09:00:00Z","deliverBy":"2026-11-01T00:00:00Z""#),
        order(#"{"productID":3,"quantity":16}"#),
        Case(method: .post, path: "api/purchases", body: "not json", comparesBodies: false),
        Case(method: .get, path: "api/purchases"),
    ]

    @Test func answersEveryRequestAsTheEmbeddedBackendDoes() async throws {
        let embedded = try DemoBackend(contentsOf: ExampleFiles.demoData)
        try await DemoServer.with { server in
            let serverToken = try await Self.logIn(server.baseURL)
            let embeddedToken = try Self.logIn(embedded)
            for item in Self.cases {
                let served = try await Self.send(item, to: server.baseURL, token: serverToken)
                let answered = Self.send(item, to: embedded, token: embeddedToken)
                #expect(served.status == answered.status, "\(item)")
                if item.comparesBodies {
                    let servedBody = try #require(try JSONSerialization.jsonObject(with: served.body) as? NSObject)
                    let answeredBody = try #require(try JSONSerialization.jsonObject(with: answered.body) as? NSObject)
                    let isLogin = item.path == "api/users/login" && served.status == 200
                    let bodies = [served.body, answered.body].map { String(decoding: $0, as: UTF8.self) }
                    #expect(isLogin || servedBody == answeredBody, "\(item): \(bodies[0]) ≠ \(bodies[1])")
                }
            }
        }
    }

    @Test func streamsTheSameNotificationsAsTheEmbeddedBackendPartByPart() async throws {
        let embedded = try DemoBackend(contentsOf: ExampleFiles.demoData)
        try await DemoServer.with { server in
            let serverToken = try await Self.logIn(server.baseURL)
            let embeddedToken = try Self.logIn(embedded)
            let item = Case(method: .get, path: "api/notifications")
            let answered = Self.send(item, to: embedded, token: embeddedToken)
            let stream = try await Session().stream(
                Request(Self.request(item, server.baseURL, token: serverToken)))
            var chunks: [Data] = []
            for try await chunk in stream {
                chunks.append(chunk)
            }
            #expect(stream.response.status == 200)
            #expect(stream.response.headers["Content-Type"] == "text/event-stream")
            let body = chunks.reduce(Data(), +)
            let expected = answered.laterParts.reduce(answered.body, +)
            #expect(
                body == expected,
                "\(String(decoding: body, as: UTF8.self)) ≠ \(String(decoding: expected, as: UTF8.self))")
            // Written 150 ms apart, the parts arrive apart.
            #expect(chunks.count >= 2, "the stream arrived in \(chunks.count) chunk(s)")

            var reconnection = Self.request(item, server.baseURL, token: serverToken)
            reconnection.setValue("3", forHTTPHeaderField: "Last-Event-ID")
            let end = try await Session().stream(Request(reconnection))
            #expect(end.response.status == 204)
        }
    }

    @Test func logInThroughTheAPIClientAnswersTheDemoUser() async throws {
        try await DemoServer.with { server in
            let api = API(baseURL: server.baseURL, performer: Session(), maxPOExpense: Money(cents: 0))
            let signedIn = try await api.logIn(username: "ada", password: "analytical-engine")
            #expect(signedIn.userID == Fixtures.userID && !signedIn.token.isEmpty)
        }
    }

    static func logIn(_ baseURL: URL) async throws -> String {
        let login: LoginAnswer = try await Session().perform(
            API.logInRequest(baseURL: baseURL, username: "ada", password: "analytical-engine"))
        return login.token
    }

    static func logIn(_ backend: DemoBackend) throws -> String {
        let request = API.logInRequest(baseURL: Fixtures.server, username: "ada", password: "analytical-engine")
        let answer = backend.answer(try request.makeURLRequest(), body: nil)
        return try JSONDecoder().decode(LoginAnswer.self, from: answer.body).token
    }

    static func request(_ item: Case, _ baseURL: URL, token: String) -> URLRequest {
        var request = URLRequest(url: baseURL.appending(path: item.path))
        request.httpMethod = item.method.rawValue
        switch item.authorization {
        case .none: break
        case .bearer: request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        case .forgedBearer: request.setValue("Bearer forged", forHTTPHeaderField: "Authorization")
        case .basic(let credentials): request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        }
        request.httpBody = item.body.map { Data($0.utf8) }
        return request
    }

    static func send(_ item: Case, to baseURL: URL, token: String) async throws -> DemoBackend.Answer {
        let response: Response = try await Session().perform(
            Request(request(item, baseURL, token: token)))
        return DemoBackend.Answer(status: response.status, body: response.data ?? Data())
    }

    static func send(_ item: Case, to backend: DemoBackend, token: String) -> DemoBackend.Answer {
        let request = request(item, Fixtures.server, token: token)
        return backend.answer(request, body: request.httpBody)
    }

    /// A ready `URLRequest` as a Fetch `Request`.
    struct Request: Fetch.Request {
        let urlRequest: URLRequest

        init(_ urlRequest: URLRequest) {
            self.urlRequest = urlRequest
        }

        var url: URL { urlRequest.url ?? Fixtures.server }

        func makeURLRequest() throws -> URLRequest {
            urlRequest
        }
    }
}
