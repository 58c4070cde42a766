// The code samples of the `///` doc comments in Sources, compiled here so that they cannot rot. Each region between
// DOC-BEGIN and DOC-END is one ```swift block of a doc comment, verbatim but for indentation; DocSampleTests checks
// that they match.
//
// Samples of different types reuse names (User, GetUser, APIError, session, request) with different meanings, so
// each is compiled in a scope of its own: an enum named after the documented symbol holds what the sample takes for
// granted (the fixtures), and the sample itself, in a function whose parameters are the values it uses.

import Fetch
import FetchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What most samples take for granted: a user model and a request for one user.
enum DocFixtures {
    struct User: Decodable, Parsable {
        let id: Int
        let name: String
    }

    struct GetUser: Request {
        let id: Int
        var url: URL { URL(filePath: "/users/\(id)") }
    }
}

// MARK: - Fetch

enum HTTPMethodSample {
    static func sample() {
        // DOC-BEGIN
        let purge: HTTPMethod = "PURGE"
        // DOC-END
        _ = purge
    }
}

enum HeaderFieldsSample {
    static func sample() {
        // DOC-BEGIN
        let headers: HeaderFields = ["Content-Type": "application/json", "X-Amz-Date": "20260101T000000Z"]
        let type = headers["content-type"]  // "application/json"
        let date = headers["x-amz-date"]  // "20260101T000000Z"
        // DOC-END
        _ = (type, date)
    }
}

enum RequestSample {
    // DOC-BEGIN
    struct GetUser: Request {
        let id: Int
        var url: URL { URL(string: "https://api.example.com/users/\(id)")! }
    }
    // DOC-END
}

enum RequestPerformingSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    // DOC-BEGIN
    struct UserAPI {
        let performer: any RequestPerforming

        func user(id: Int) async throws -> User {
            try await performer.perform(GetUser(id: id))
        }
    }
    // DOC-END
}

enum ResponseSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample() throws {
        // DOC-BEGIN
        let response = Response(status: 200, data: Data(#"{"id":1}"#.utf8), originalRequest: GetUser(id: 1))
        let user = try User.parse(response: response, errorParser: nil).get()
        // DOC-END
        _ = user
    }
}

enum EmptyResponseSample {
    struct DeleteUser: Request {
        let id: Int
        var url: URL { URL(filePath: "/users/\(id)") }
        var method: HTTPMethod { .delete }
    }

    static func sample(session: Session) async throws {
        // DOC-BEGIN
        let _: EmptyResponse = try await session.perform(DeleteUser(id: 7))
        // DOC-END
    }
}

enum ErrorParsingSample {
    enum APIError: Error {
        case notLoggedIn(challenge: String?)
    }

    // DOC-BEGIN
    struct APIErrorParser: ErrorParsing {
        func parseError(from response: Response) -> (any Error)? {
            guard response.status == 401 else { return nil }
            return APIError.notLoggedIn(challenge: response.headers["WWW-Authenticate"])
        }
    }
    // DOC-END
}

/// The fixture of ``Response/requireSuccess(errorParser:)``'s sample: a format of your own, read from XML.
struct Feed: Sendable {
    init(xml: Data) throws {}
}

// DOC-BEGIN
extension Feed: Parsable {
    static func parse(response: Response, errorParser: (any ErrorParsing)?) -> Result<Feed, any Error> {
        response.requireSuccess(errorParser: errorParser).flatMap { response in
            Result { try Feed(xml: response.data ?? Data()) }
        }
    }
}
// DOC-END

enum DecodableErrorParserSample {
    typealias User = DocFixtures.User

    static func sample(session: Session, request: any Request) async throws {
        // DOC-BEGIN
        struct APIError: Error, Decodable {
            let reason: String
        }
        let user: User = try await session.perform(request, errorParser: DecodableErrorParser<APIError>())
        // DOC-END
        _ = user
    }
}

enum ParsableSample {
    // DOC-BEGIN
    struct User: Decodable, Parsable {
        let id: Int
        let name: String
    }
    // DOC-END
}

enum ParsableDecoderSample {
    struct Event: Decodable, Parsable {
        let startDate: Date

        // DOC-BEGIN
        static let decoder: JSONDecoder = {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = DefaultDecoding.iso8601Flexible
            return decoder
        }()
        // DOC-END
    }
}

enum CacheMiddlewareSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample(session: Session) async throws {
        // DOC-BEGIN
        let cache = ResponseCache(maximumBytes: 32 << 20)
        let api = session.with(.cache(cache))
        let user: User = try await api.perform(GetUser(id: 1))  // from the network
        let again: User = try await api.perform(GetUser(id: 1))  // from memory while fresh
        // DOC-END
        _ = (user, again)
    }
}

enum ResponseCacheSample {
    static func sample(session: Session, token: String) {
        // DOC-BEGIN
        let cache = ResponseCache()
        let api = session.with(.cache(cache))
        // at log-out:
        cache.removeAll(authorizedBy: [.authorization(bearerToken: token)])
        // DOC-END
        _ = api
    }
}

enum ResponseCacheDiskSample {
    static func sample() throws {
        // DOC-BEGIN
        let caches = try FileManager.default.url(
            for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        let cache = try ResponseCache(directory: caches.appending(path: "api"), offlinePolicy: .serveStoredOnFailure)
        // DOC-END
        _ = cache
    }
}

enum ResponseCacheLogOutSample {
    static func sample(cache: ResponseCache, token: String) {
        // DOC-BEGIN
        cache.removeAll(authorizedBy: [.authorization(bearerToken: token)])
        // DOC-END
    }
}

enum ResponseIsStaleSample {
    typealias GetUser = DocFixtures.GetUser

    static func sample(performer: any RequestPerforming) async throws {
        // DOC-BEGIN
        let response: Response = try await performer.perform(GetUser(id: 1))
        if response.isStale {
            print("offline: showing data \(response.headers["Age"] ?? "?") seconds old")
        }
        // DOC-END
    }
}

enum DeduplicateSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample(session: Session) async throws {
        // DOC-BEGIN
        let api = session.with(.deduplicate())
        async let first: User = api.perform(GetUser(id: 1))
        async let second: User = api.perform(GetUser(id: 1))  // no second request reaches the server
        // DOC-END
        _ = try await (first, second)
    }
}

enum TransferSample {
    struct GetFile: Request {
        let name: String
        var url: URL { URL(filePath: "/files/\(name)") }
    }

    struct UploadPhoto: Request {
        var url: URL { URL(filePath: "/photos") }
        var method: HTTPMethod { .post }
    }

    struct Receipt: Decodable, Parsable {
        let id: Int
    }

    static func download(session: Session, destination: URL) async throws {
        // DOC-BEGIN
        let download = session.download(GetFile(name: "video.mp4"), to: destination)
        for await progress in download.progress {
            print(progress.fractionCompleted ?? 0)
        }
        let response = try await download.value
        // DOC-END
        _ = response
    }

    static func upload(session: Session, photo: URL) async throws {
        // DOC-BEGIN
        let upload = session.upload(UploadPhoto(), fromFile: photo, as: Receipt.self)
        let receipt = try await upload.value
        // DOC-END
        _ = receipt
    }
}

enum MiddlewareSample {
    static func sample(session: Session) {
        // DOC-BEGIN
        struct RequestSigner: Middleware {
            let key: String

            func intercept(
                _ request: any Request,
                context: CallContext,
                next: Next,
                completion: @escaping @Sendable (Result<Response, any Error>) -> Void
            ) {
                var signed = AdaptedRequest(request)
                signed.headers["X-Signature"] = key
                next(signed, completion: completion)
            }
        }

        let performer = session.with(RequestSigner(key: "k"))
        // DOC-END
        _ = performer
    }
}

enum PipelineSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    struct RequestSigner: Middleware {
        let key: String

        func intercept(
            _ request: any Request,
            context: CallContext,
            next: Next,
            completion: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) {
            next(request, completion: completion)
        }
    }

    static func sample(session: Session, key: String) async throws {
        // DOC-BEGIN
        let api = session.with(RequestSigner(key: key), .retry())
        let user: User = try await api.perform(GetUser(id: 1))
        // DOC-END
        _ = user
    }

    static func withSample(session: Session) {
        // DOC-BEGIN
        let api = session.with(.observe { print($0) }, .retry(), RequestSigner(key: "k"))
        // DOC-END
        _ = api
    }
}

enum APIRequestSample {
    struct NewUser: Encodable {
        let name: String
    }

    static func sample(baseURL: URL) {
        // DOC-BEGIN
        let search = APIRequest(baseURL)
            .path("search", "repositories")
            .query("q", "swift & linux")
            .header(.accept("application/json"))

        let create = APIRequest(baseURL)
            .path("users")
            .method(.post)
            .jsonBody(NewUser(name: "Ada"))
        // DOC-END
        _ = (search, create)
    }
}

enum EndpointSample {
    static func sample() {
        // DOC-BEGIN
        enum GitHub: Endpoint {
            case user(name: String)
            case search(query: String)

            var baseURL: URL { URL(string: "https://api.github.com")! }

            var pathSegments: [String] {
                switch self {
                case .user(let name): ["users", name]
                case .search: ["search", "repositories"]
                }
            }

            var queryItems: [URLQueryItem] {
                switch self {
                case .user: []
                case .search(let query): [URLQueryItem(name: "q", value: query)]
                }
            }
        }

        let request = APIRequest(GitHub.user(name: "apple"))
        // DOC-END
        _ = request
    }
}

enum HTTPHeaderSample {
    static func sample(url: URL, token: String) throws {
        // DOC-BEGIN
        let request = APIRequest(url)
            .header(.accept("application/json"))
            .header(.authorization(bearerToken: token))
            .header(.authorization(username: "ada", password: "s3cr3t:ü"))
        // DOC-END
        _ = request
    }
}

enum MultipartBodySample {
    static func sample(photoURL: URL, uploadURL: URL) {
        // DOC-BEGIN
        let form = MultipartBody()
            .field("title", "Holiday")
            .file("photo", contentsOf: photoURL, contentType: "image/jpeg")
        let request = APIRequest(uploadURL).method(.post).multipartBody(form)
        // DOC-END
        _ = request
    }
}

enum BearerAuthenticatorSample {
    struct TokenResponse: Decodable, Parsable {
        let token: String
    }

    struct RefreshToken: Request {
        let refreshToken: String?
        var url: URL { URL(filePath: "/token") }
        var method: HTTPMethod { .post }
    }

    static func sample(session: Session, savedToken: String?, savedRefreshToken: String?) {
        // DOC-BEGIN
        let tokens = BearerAuthenticator(token: savedToken) {
            let answer: TokenResponse = try await session.perform(RefreshToken(refreshToken: savedRefreshToken))
            return answer.token
        }
        let api = session.with(.authenticate(with: tokens))
        // DOC-END
        _ = api
    }
}

enum AuthenticateSample {
    static func sample(session: Session, tokens: BearerAuthenticator) {
        // DOC-BEGIN
        let api = session.with(.authenticate(with: tokens))
        // DOC-END
        _ = api
    }
}

enum ObserveSample {
    static func sample(session: Session) {
        // DOC-BEGIN
        let api = session.with(.observe { event in print(event) })
        // GET https://api.example.com/users/1 → 200 OK, 312 bytes in 4.1 ms
        // DOC-END
        _ = api
    }
}

enum RequestAdaptingSample {
    static func sample(session: Session) {
        // DOC-BEGIN
        let api = session.with(
            .adapt { request in
                request.headers["Accept-Language"] = "en"
                request.headers.append("X-Trace", "client")
            })
        // DOC-END
        _ = api
    }

    static func middlewareSample(session: Session) {
        // DOC-BEGIN
        let api = session.with(
            .header("User-Agent", "Fetch-Example/1.0"),
            .requestID(),
            .adapt { request in
                request.headers["Accept-Language"] = Locale.current.identifier
            })
        // DOC-END
        _ = api
    }

    static func interceptSample(session: Session) {
        // DOC-BEGIN
        let api = session.with(
            .intercept { request, context, next, completion in
                var signed = AdaptedRequest(request)
                signed.headers["X-Signature"] = "k"
                next(signed) { answer in
                    completion(answer)
                }
            })
        // DOC-END
        _ = api
    }
}

enum RetrySample {
    static func sample(session: Session) {
        // DOC-BEGIN
        let api = session.with(.retry(RetryPolicy(maximumAttempts: 4, deadline: 30)))
        // DOC-END
        _ = api
    }

    static func backoffSample() {
        // DOC-BEGIN
        let patient = RetryPolicy(maximumAttempts: 6, backoff: Backoff(initialDelay: 1, maximumDelay: 60))
        // DOC-END
        _ = patient
    }
}

enum SessionSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample() async throws {
        // DOC-BEGIN
        let session = Session()
        session.perform(GetUser(id: 1)) { (result: Result<User, any Error>) in
            // on the main queue
        }
        let user: User = try await session.perform(GetUser(id: 1))
        // DOC-END
        _ = user
    }
}

// MARK: - FetchTesting

enum CapturedSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample() throws {
        // DOC-BEGIN
        let user = Captured<Result<User, any Error>>()
        MockPerformer { _ in .json(#"{"id": 1, "name": "Ada"}"#) }.perform(GetUser(id: 1), completion: user.capture)
        #expect(try user.value?.get().name == "Ada")
        // DOC-END
    }

    static func waiting(session: Session, user: Captured<Result<User, any Error>>) async throws {
        // DOC-BEGIN
        session.perform(GetUser(id: 1), completion: user.capture)
        let result = try await user.first()
        // DOC-END
        _ = result
    }
}

enum MockPerformerSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample() throws {
        // DOC-BEGIN
        let mock = MockPerformer { _ in MockResponse(status: 200, data: Data(#"{"id":1,"name":"Ada"}"#.utf8)) }
        let result = Captured<Result<User, any Error>>()
        mock.perform(GetUser(id: 1), completion: result.capture)
        #expect(try result.value?.get().name == "Ada")
        // DOC-END
    }
}

enum SpyPerformerSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    struct UserAPI {
        let performer: any RequestPerforming

        func loadUser(id: Int, completion: @escaping @Sendable (Result<User, any Error>) -> Void) {
            performer.perform(GetUser(id: id), completion: completion)
        }
    }

    static func sample() {
        // DOC-BEGIN
        let spy = SpyPerformer()
        UserAPI(performer: spy).loadUser(id: 7) { _ in }
        #expect(spy.requests.last?.url.path == "/users/7")
        // DOC-END
    }

    struct AsyncUserAPI: Sendable {
        let performer: any RequestPerforming

        func user(id: Int) async throws -> User {
            try await performer.perform(GetUser(id: id))
        }
    }

    static func nextCallSample() async throws {
        typealias UserAPI = AsyncUserAPI
        // DOC-BEGIN
        let spy = SpyPerformer()
        Task { try await UserAPI(performer: spy).user(id: 7) }
        let call = try await spy.nextCall()
        #expect(call.request.url.path == "/users/7")
        call.complete(with: .json(#"{"id": 7, "name": "Ada"}"#))
        // DOC-END
    }
}

enum TestSchedulerSample {
    typealias User = DocFixtures.User

    static func sample(flakyMock: MockPerformer, request: any Request, result: Captured<Result<User, any Error>>) {
        // DOC-BEGIN
        let scheduler = TestScheduler()
        let performer = flakyMock.with(.retry(RetryPolicy(backoff: Backoff(jitter: 0)), scheduler: scheduler))
        performer.perform(request, completion: result.capture)
        #expect(scheduler.delays == [0.5, 1])
        // DOC-END
    }
}

// MARK: - Recording and replay

enum RedactionSample {
    static func sample() -> Redaction {
        // DOC-BEGIN
        let redaction: Redaction = ["X-Session", "api_key"]
        // DOC-END
        return redaction
    }
}

enum RecordingSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample(session: Session) async throws -> User {
        // DOC-BEGIN
        let recorded = try session.with(.record(to: URL(fileURLWithPath: "api.har"), redacting: ["X-Session"]))
        let user: User = try await recorded.perform(GetUser(id: 1))
        // DOC-END
        return user
    }
}

enum HARMatcherSample {
    static func sample(fixture: URL) throws -> MockPerformer {
        // DOC-BEGIN
        let matcher = HARMatcher(ignoringQueryItems: ["nonce"], ignoringBodyFields: ["timestamp"])
        let mock = try MockPerformer(replaying: fixture, matching: matcher)
        // DOC-END
        return mock
    }
}

enum MockPerformerReplaySample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func sample() async throws -> User {
        // DOC-BEGIN
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("api.har")
        let mock = try MockPerformer(replaying: fixture)
        let user: User = try await mock.perform(GetUser(id: 1))
        // DOC-END
        return user
    }
}

enum DownloadResumptionSample {
    struct GetFile: Request {
        let name: String
        var url: URL { URL(filePath: "/files/\(name)") }
    }

    static func sample(session: Session, destination: URL) -> Transfer<Response> {
        // DOC-BEGIN
        let download = session.download(
            GetFile(name: "video.mp4"), to: destination,
            resumption: DownloadResumption(
                retryPolicy: RetryPolicy(maximumAttempts: 5),
                expectedSHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
            ))
        // DOC-END
        return download
    }
}

// MARK: - Streaming

enum StreamingFixtures {
    struct ExportOrders: Request {
        var url: URL { URL(filePath: "/orders/export") }
    }

    struct Order: Decodable, Sendable {
        let id: Int
    }

    struct GetNotifications: Request {
        var url: URL { URL(filePath: "/notifications") }
    }

    struct Notification: Decodable {
        let text: String
    }
}

enum ResponseStreamSample {
    typealias ExportOrders = StreamingFixtures.ExportOrders
    typealias Order = StreamingFixtures.Order

    static func sample(session: Session) async throws {
        // DOC-BEGIN
        let stream = try await session.stream(ExportOrders())
        print(stream.response.status)
        for try await line in stream.lines {
            print(line)
        }
        // DOC-END
    }

    static func jsonLines(session: Session) async throws {
        // DOC-BEGIN
        for try await order in try await session.stream(ExportOrders()).jsonLines(of: Order.self) {
            print(order)
        }
        // DOC-END
    }
}

enum ServerSentEventSample {
    typealias GetNotifications = StreamingFixtures.GetNotifications
    typealias Notification = StreamingFixtures.Notification

    static func sample(session: Session) async throws {
        // DOC-BEGIN
        for try await event in session.events(GetNotifications()) {
            let notification = try event.decode(Notification.self)
            print(notification)
        }
        // DOC-END
    }
}

enum SessionStreamingSample {
    typealias ExportOrders = StreamingFixtures.ExportOrders
    typealias Order = StreamingFixtures.Order

    static func sample(session: Session) async throws {
        // DOC-BEGIN
        let stream = try await session.stream(ExportOrders())
        for try await order in stream.jsonLines(of: Order.self) {
            print(order)
        }
        // DOC-END
    }
}

enum MockStreamSample {
    static func sample(request: any Request) async throws {
        // DOC-BEGIN
        let mock = MockStream(connections: [
            .events([ServerSentEvent(id: "1", data: "one")], retry: 500),  // then the connection drops
            .events([ServerSentEvent(id: "2", data: "two")]),
            .noContent,  // 204: the client stops
        ])
        let scheduler = TestScheduler()
        var received: [String] = []
        for try await event in mock.events(request, scheduler: scheduler) {
            received.append(event.data)
        }
        #expect(received == ["one", "two"])
        #expect(try mock.requests[1].makeURLRequest().value(forHTTPHeaderField: "Last-Event-ID") == "1")
        #expect(scheduler.delays == [0.5, 0.5])
        // DOC-END
    }
}

enum FetchErrorSample {
    typealias User = DocFixtures.User
    typealias GetUser = DocFixtures.GetUser

    static func retryLater() {}
    static func show(_ status: Int?) {}

    static func sample(session: Session) async throws {
        // DOC-BEGIN
        do {
            let user: User = try await session.perform(GetUser(id: 7))
            print(user.name)
        } catch let error as FetchError where error.code == .timedOut {
            retryLater()
        } catch let error as FetchError where error.code == .unacceptableStatus {
            show(error.response?.status)
        }
        // DOC-END
    }
}

enum FetchEventSample {
    struct Metrics: Sendable {
        func record(_ duration: TimeInterval, status: Int?) {}
    }

    static func sample(session: Session, metrics: Metrics) -> Pipeline {
        // DOC-BEGIN
        let api = session.with(
            .observe { event in
                if event.name == .finished, let duration = event.duration {
                    metrics.record(duration, status: event.status)
                }
            })
        // DOC-END
        return api
    }

    static func reporting(context: CallContext, request: any Request) {
        // DOC-BEGIN
        context.report(FetchEvent(FetchEvent.Name("myapp.signed"), request: request, reason: "key 7"))

        var hit = FetchEvent(.cacheHit, request: request)
        hit.status = 200
        context.report(hit)
        // DOC-END
    }
}
