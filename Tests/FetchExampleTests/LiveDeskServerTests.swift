import Foundation
import Testing

@testable import FetchExample

/// The example's live desk server, spoken to by another implementation of RFC 6455: the `websockets` Python package
/// as the client (installed with pip when it is missing; the tests are skipped, saying so, when it cannot be).
@Suite(
    .enabled(
        if: PythonWebsockets.isInstalled,
        "skipped: the websockets Python package is not installed, and python3 -m pip install websockets failed"))
struct LiveDeskServerTests {
    /// A client that is refused without the token, then opens the channel, reads two updates, posts, reads the
    /// echo and the close; it prints what it saw, one line each. `websockets` checks `Sec-WebSocket-Accept` and the
    /// server's framing itself: a wrong one fails the handshake or the read.
    static let client = """
        import json, sys
        from websockets.sync.client import connect
        from websockets.exceptions import ConnectionClosedOK, InvalidStatus
        url, token = sys.argv[1], sys.argv[2]
        try:
            connect(url, additional_headers={"Authorization": "Bearer wrong"}, open_timeout=5).close()
            print("opened without the token")
        except InvalidStatus as error:
            print("refused:", error.response.status_code, json.loads(error.response.body)["reason"])
        with connect(url, additional_headers={"Authorization": "Bearer " + token}, open_timeout=5) as socket:
            print("opened:", socket.response.status_code)
            print("update:", socket.recv(timeout=5))
            print("update:", socket.recv(timeout=5))
            socket.send(json.dumps({"kind": "post", "text": "hello, desk"}))
            print("echo:", socket.recv(timeout=5))
            try:
                socket.recv(timeout=5)
                print("no close")
            except ConnectionClosedOK as closed:
                print("closed:", closed.rcvd.code, closed.rcvd.reason)
        """

    @Test func answersTheHandshakeSendsTheUpdatesEchoesAndClosesWith1000() async throws {
        let server = try LiveDeskServer(
            updates: [#"{"kind":"event","text":"All-hands meeting, Main hall"}"#, #"{"kind":"event","text":"Party"}"#]
        ) { authorization in
            authorization == "Bearer secret" ? nil : "unknown or expired token; log in again"
        }
        defer { server.stop() }
        let url = server.baseURL.appending(path: "live").absoluteString
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.client, url, "secret"], timeout: .seconds(30))
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(
            run.output.split(separator: "\n").map(String.init) == [
                "refused: 401 unknown or expired token; log in again",
                "opened: 101",
                #"update: {"kind":"event","text":"All-hands meeting, Main hall"}"#,
                #"update: {"kind":"event","text":"Party"}"#,
                #"echo: {"kind":"echo","text":"hello, desk"}"#,
                "closed: 1000 the desk is closed",
            ])
    }

    @Test func refusesAnotherPathAndAPlainGET() async throws {
        let server = try LiveDeskServer(updates: []) { _ in nil }
        defer { server.stop() }
        let script = """
            import sys, urllib.request, urllib.error
            from websockets.sync.client import connect
            from websockets.exceptions import InvalidStatus
            try:
                connect(sys.argv[1] + "elsewhere", open_timeout=5).close()
            except InvalidStatus as error:
                print("ws:", error.response.status_code)
            try:
                urllib.request.urlopen(sys.argv[1].replace("ws:", "http:") + "live", timeout=5)
            except urllib.error.HTTPError as error:
                print("http:", error.code)
            """
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, server.baseURL.absoluteString],
            timeout: .seconds(30))
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(run.output == "ws: 404\nhttp: 400\n")
    }
}

/// The `websockets` Python package, which the live desk's tests use as the client.
enum PythonWebsockets {
    /// Whether `python3` can import `websockets`, after one attempt to install it.
    static let isInstalled: Bool = {
        func succeeds(_ arguments: [String]) -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                return false
            }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        return succeeds(["-c", "import websockets.sync.client"])
            || (succeeds(["-m", "pip", "install", "--quiet", "websockets"])
                && succeeds(["-c", "import websockets.sync.client"]))
    }()
}
