import Foundation
import SpawnSupport
import Testing

@testable import FetchExample

/// The example's live desk server, spoken to by another implementation of RFC 6455: the `websockets` Python package
/// as the client (installed with pip when it is missing; the tests are skipped, saying so, when it cannot be).
@Suite(
    .enabled(
        if: PythonWebsockets.isInstalled,
        "skipped: the websockets Python package is not installed, and python3 -m pip install websockets failed"))
struct LiveDeskServerTests {
    /// A client that is refused without the token, then opens the channel, reads two updates, posts, and sees the
    /// desk restart (a drop with no close frame); then opens it again, posts, reads the echo and the close; it prints
    /// what it saw, one line each. `websockets` checks `Sec-WebSocket-Accept` and the
    /// server's framing itself: a wrong one fails the handshake or the read.
    static let client = """
        import json, sys
        from websockets.sync.client import connect
        from websockets.exceptions import ConnectionClosedError, ConnectionClosedOK, InvalidStatus
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
            try:
                socket.recv(timeout=5)
                print("no drop")
            except ConnectionClosedError as closed:
                print("dropped:", "no close frame" if closed.rcvd is None else closed.rcvd.code)
        with connect(url, additional_headers={"Authorization": "Bearer " + token}, open_timeout=5) as socket:
            print("reopened:", socket.response.status_code)
            socket.send(json.dumps({"kind": "post", "text": "hello, desk"}))
            print("echo:", socket.recv(timeout=5))
            try:
                socket.recv(timeout=5)
                print("no close")
            except ConnectionClosedOK as closed:
                print("closed:", closed.rcvd.code, closed.rcvd.reason)
        """

    @Test func sendsTheUpdatesDropsTheFirstConnectionThenEchoesAndClosesWith1000() async throws {
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
                "dropped: no close frame",
                "reopened: 101",
                #"echo: {"kind":"echo","text":"hello, desk"}"#,
                "closed: 1000 the desk is closed",
            ])
    }

    /// A raw client (the standard library's socket) that opens the channel, skips the updates, sends the frame
    /// given in hex, and prints the close code the server answers with.
    static let rawClient = """
        import base64, os, socket, struct, sys
        host, port = sys.argv[1].split("//")[1].strip("/").split(":")
        key = base64.b64encode(os.urandom(16)).decode()
        connection = socket.create_connection((host, int(port)), timeout=5)
        connection.sendall(("GET /live HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
            "Sec-WebSocket-Key: " + key + "\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n").encode())
        received = b""
        while b"\\r\\n\\r\\n" not in received:
            received += connection.recv(4096)
        received = received.split(b"\\r\\n\\r\\n", 1)[1]
        connection.sendall(bytes.fromhex(sys.argv[2]))
        while True:
            while len(received) < 2 or len(received) < 2 + (received[1] & 0x7F):
                chunk = connection.recv(4096)
                if not chunk:
                    sys.exit("closed without a close frame")
                received += chunk
            opcode, length = received[0] & 0x0F, received[1] & 0x7F
            if opcode == 8:
                print(struct.unpack("!H", received[2:4])[0])
                break
            received = received[2 + length:]
        """

    @Test(arguments: [
        // An unmasked text frame: a client must mask (1002).
        ("810568656c6c6f", 1002),
        // A masked frame that says it holds 2^63 - 1 bytes: over the limit before a byte of it is read (1009).
        ("81ff7fffffffffffffff00000000", 1009),
        // A masked text frame whose payload (mask 0) is not UTF-8 (1007).
        ("818200000000c328", 1007),
        // A continuation frame with no message to continue (1002).
        ("80810000000041", 1002),
    ])
    func closesOnAFrameThatBreaksTheProtocolWithItsCode(frame: String, code: Int) async throws {
        let server = try LiveDeskServer(updates: [#"{"kind":"event","text":"a"}"#]) { _ in nil }
        defer { server.stop() }
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", Self.rawClient, server.baseURL.absoluteString, frame],
            timeout: .seconds(30))
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(run.output == "\(code)\n")
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
                try Spawn.run(process)
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
