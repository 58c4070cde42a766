import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Session()` and libcurl's transport mean the same about cookies: none is sent or kept unless the session was
/// given a store (a configuration's `httpCookieStorage`, or libcurl's `cookieStorage` option), and on Linux no cookie
/// file appears in the user's home unless asked.
@Suite struct CookieDefaultsTests {
    let server: TestServer

    init() throws {
        server = try TestServer.running()
    }

    /// Logs in with the good token (the server sets a login cookie), then sends a wrong token, as a call and as a
    /// stream: the server answers 200 to the wrong token only when the login cookie comes with it.
    func wrongTokenAfterALogin(through session: Session) async throws -> [Result<Data, any Error>] {
        let id = UUID().uuidString
        let login = APIRequest(server.url("/requests/cookies/\(id)/set?user=A")).header("Authorization", "Bearer good")
        let _: Data = try await session.perform(login)
        let wrong = APIRequest(server.url("/requests/cookies/\(id)/guarded")).header("Authorization", "Bearer wrong")
        let called: Result<Data, any Error> = await Result { try await session.perform(wrong) }
        let streamed: Result<Data, any Error> = await Result {
            var body = Data()
            for try await chunk in try await session.stream(wrong) {
                body.append(chunk)
            }
            return body
        }
        return [called, streamed]
    }

    /// The faces a user gets without choosing a store: `Session()` and `CurlTransport()`.
    static let facesWithoutAStore = SessionFace.allCases.filter { $0 == .shared || !$0.isURLSession }

    @Test(arguments: facesWithoutAStore)
    func aWrongTokenAfterALoginFailsWithoutAStoreOfYourChoosing(_ face: SessionFace) async throws {
        let (session, finish) = try face.makeSession()
        defer { finish() }
        for result in try await wrongTokenAfterALogin(through: session) {
            let error = try fetchError(result)
            #expect(error.response?.status == 403, "\(face): \(error)")
        }
    }

    @Test func aConfigurationsCookieStorageIsHonoured() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        let session = Session(transport: URLSessionTransport(configuration: configuration))
        for result in try await wrongTokenAfterALogin(through: session) {
            #expect(throws: Never.self) { try result.get() }
        }
    }

    #if os(Linux)
        @Test func libcurlsTransportKeepsCookiesInTheStoreItIsGiven() async throws {
            let store = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
            let session = try Session(transport: CurlTransport(options: CurlTransport.Options(cookieStorage: store)))
            for result in try await wrongTokenAfterALogin(through: session) {
                let body = try result.get()
                #expect(String(decoding: body, as: UTF8.self).contains("user=A"))
            }
            #expect(store.cookies?.map(\.name) == ["user"])
        }

        /// A process whose home is a new directory sends cookies' requests through `Session()` and `CurlTransport()`:
        /// no file appears under its home. (swift-corelibs-foundation makes `~/.local/share/<executable>` for any
        /// `URLSessionConfiguration`; its `HTTPCookieStorage.shared` writes `.cookies.shared` there on the first
        /// cookie it keeps.)
        @Test func noCookieFileAppearsInTheUsersHome() async throws {
            let variable = "FETCH_COOKIE_HOME_CHILD"
            if ProcessInfo.processInfo.environment[variable] == "1" {
                for face in Self.facesWithoutAStore {
                    let (session, finish) = try face.makeSession()
                    defer { finish() }
                    _ = try await wrongTokenAfterALogin(through: session)
                }
                return
            }
            let home = try TemporaryDirectory("fetch-cookie-home")
            let run = try ChildTestRun(
                filter: "CookieDefaultsTests/noCookieFileAppearsInTheUsersHome",
                environment: [
                    variable: "1", "HOME": home.url.path,
                    "XDG_DATA_HOME": home.url.appendingPathComponent("share").path,
                ])
            let finished = try await run.finish(within: .seconds(120))
            #expect(finished.status == 0, "the run in a process of its own failed:\n\(finished.output)")
            #expect(finished.output.contains("Test run with 1 test"), "the child ran no test:\n\(finished.output)")
            var files: [String] = []
            let found = FileManager.default.enumerator(at: home.url, includingPropertiesForKeys: [.isRegularFileKey])
            for case let url as URL in found ?? NSEnumerator()
            where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
                files.append(url.path)
            }
            #expect(files.isEmpty, "files in the home: \(files)")
        }
    #endif
}
