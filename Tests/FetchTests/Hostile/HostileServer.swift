import Foundation

/// The hostile loopback server of `Tests/FetchTests/Support/Server/hostile_server.py`, one per child process of the hostile suite.
///
/// Started the way ``TestServer`` starts `test_server.py`: it prints its port on its first line, and exits when its
/// standard input closes, that is when this process ends, however it ends (a crash included).
final class HostileServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    /// The running script, which lives as long as this server.
    private let server: PythonServerProcess

    init() throws {
        server = try PythonServerProcess(script: "hostile_server.py")
        guard let baseURL = URL(string: "http://127.0.0.1:\(server.port)") else {
            throw TestServerError("no URL for the hostile server's port \(server.port)")
        }
        self.baseURL = baseURL
    }

    /// The path (with its query) of `behaviour` for the run `run`: `/hostile/<name>?run=<run>`.
    func path(of behaviour: HostileBehaviour, run: String) -> String {
        "/hostile/\(behaviour.name)?run=\(run)"
    }

    /// The URL of `path`; with `credentials`, carrying the user `hostile` and the wrong password `wrong`.
    func url(_ path: String, credentials: Bool = false) throws -> URL {
        let userInfo = credentials ? "hostile:wrong@" : ""
        guard let port = baseURL.port, let url = URL(string: "http://\(userInfo)127.0.0.1:\(port)\(path)") else {
            throw TestServerError("cannot make a URL of \(path) on \(baseURL)")
        }
        return url
    }
}
