import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request that sets its own `Cookie` header reaches the server with exactly that header on every face, whatever
/// cookies the `URLSession`'s storage holds for its URL (one user's `Set-Cookie` never goes out as another user's
/// header), and the cookies of its response stay out of that storage.
@Suite struct OwnCookieHeaderTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// Every `Cookie` field the server received, each apart.
    struct Seen: Decodable, Parsable {
        let cookies: [String]
    }

    /// The `Cookie` fields that reach the server for a request of `session`, with `cookie` as its own header if any,
    /// sent as a call and as a stream (which go through different `URLSession`s).
    func cookiesSeen(through session: Session, id: String, cookie: String? = nil) async throws -> [[String]] {
        var request = APIRequest(server.url("/requests/cookies/\(id)/seen"))
        if let cookie {
            request = request.header("Cookie", cookie)
        }
        let called: Seen = try await session.perform(request)
        var streamed = Data()
        for try await chunk in try await session.stream(request) {
            streamed.append(chunk)
        }
        return [called.cookies, try JSONDecoder().decode(Seen.self, from: streamed).cookies]
    }

    /// User A's cookie is stored (where the session keeps cookies), then user B's request with its own header must
    /// reach the server as `user=B` alone, and a cookie set in answer to B's request must not be stored.
    func expectOwnHeaderWins(on session: Session, keepsCookies: Bool, _ face: String) async throws {
        let id = UUID().uuidString
        let _: Data = try await session.perform(APIRequest(server.url("/requests/cookies/\(id)/set?user=A")))
        let stored = keepsCookies ? ["user=A"] : []
        // The storage holds user A's cookie, or the test would prove nothing (libcurl's transport keeps none).
        #expect(try await cookiesSeen(through: session, id: id) == [stored, stored], "\(face)")
        #expect(
            try await cookiesSeen(through: session, id: id, cookie: "user=B") == [["user=B"], ["user=B"]], "\(face)")
        let setForB = APIRequest(server.url("/requests/cookies/\(id)/set?user=C")).header("Cookie", "user=B")
        let _: Data = try await session.perform(setForB)
        for try await _ in try await session.stream(setForB) {}
        #expect(try await cookiesSeen(through: session, id: id) == [stored, stored], "\(face)")
    }

    @Test(arguments: SessionFace.allCases)
    func aRequestsOwnCookieHeaderReachesTheServerAsItIs(_ face: SessionFace) async throws {
        let (session, finish) = try face.makeSession()
        defer { finish() }
        // `Session()` keeps no cookies, as libcurl's transport; the other faces keep them in `.ephemeral`'s storage.
        let keepsCookies = face == .configuration || face == .callersURLSession
        try await expectOwnHeaderWins(on: session, keepsCookies: keepsCookies, face.rawValue)
    }

    @Test func aRequestsOwnCookieHeaderReachesTheServerAsItIsOverAURLSessionWithTheAppsDelegate() async throws {
        let urlSession = URLSession(configuration: .ephemeral, delegate: AppDelegate(), delegateQueue: nil)
        defer { urlSession.finishTasksAndInvalidate() }
        let session = Session(transport: URLSessionTransport(session: urlSession), callbackQueue: OperationQueue())
        try await expectOwnHeaderWins(on: session, keepsCookies: true, "appDelegate")
    }
}
