import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `401` with `WWW-Authenticate: Basic` to a wrong password ends the call with the `401`, through the error parser,
/// on every initialiser: swift-corelibs-foundation up to 6.3.1 never completes such a task on its own (its issue
/// 5456).
@Suite struct AuthenticationChallengeTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// The four shapes of the challenge: with and without a body, on a connection kept alive or closed.
    static let routes = [
        "/faults/basic", "/faults/basic?body=0", "/faults/basic?close=1", "/faults/basic?body=0&close=1",
    ]

    @Test(arguments: SessionInitialiser.allCases, routes)
    func aWrongBasicPasswordEndsWithTheServers401(_ initialiser: SessionInitialiser, route: String) async throws {
        let session = try initialiser.makeSession()
        let url = try #require(URL(string: route, relativeTo: server.url("/")))
        // "wrong:password"; the timeout only bounds the test: the 401 arrives within milliseconds.
        let request = APIRequest(url.absoluteURL).header("Authorization", "Basic d3Jvbmc6cGFzc3dvcmQ=").timeout(10)
        let result: Result<Data, any Error> = await Result {
            try await session.perform(request, errorParser: DecodableErrorParser<APIError>())
        }
        switch result {
        case .failure(let error as APIError):
            // The body made it through the error parser.
            #expect(error == APIError(error: true, reason: "wrong password"))
            #expect(!route.contains("body=0"))
        case .failure(let error as FetchError) where error.code == .unacceptableStatus:
            let response = try #require(error.response)
            #expect(response.status == 401)
            // Only without a body, over a delegate of the app's too.
            #expect(route.contains("body=0"), "\(response)")
        default:
            Issue.record("expected the 401, got \(result)")
        }
    }

    /// A second attempt after the 401 (what a user does after fixing the password) goes through: the connection
    /// and the session are still fine.
    @Test(arguments: SessionInitialiser.allCases)
    func theSessionStillAnswersAfterA401(_ initialiser: SessionInitialiser) async throws {
        let session = try initialiser.makeSession()
        let request = APIRequest(server.url("/faults/basic")).header("Authorization", "Basic eDp5").timeout(10)
        let failed: Result<Data, any Error> = await Result { try await session.perform(request) }
        guard case .unacceptableStatus(let response) = failed.failureKind else {
            Issue.record("expected the 401, got \(failed)")
            return
        }
        #expect(response.status == 401)
        let user: User = try await session.perform(TestRequest(server.url("/users/1")))
        #expect(user.id == 1)
    }
}
