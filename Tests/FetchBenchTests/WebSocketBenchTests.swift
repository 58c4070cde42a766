import Foundation
import SpawnSupport
import Testing

@testable import FetchBench

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// fetch-bench's WebSocket server, its wire loop and its Python reference client: the peers and contenders of the
/// `websocket` rows, checked against each other and against RFC 6455's own example, so that a row never measures a
/// loop that does not do what its name says.
@Suite struct WebSocketBenchTests {
    @Test func acceptValueIsRFC6455sExample() {
        // RFC 6455 §1.3: this key's accept value.
        #expect(WebSocketFraming.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(
            SHA1.digest([]).map { String(format: "%02x", $0) }.joined() == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func framesCarryTheirLengthAtEachBoundaryAndMaskTheirPayload() {
        for (length, headLength) in [(0, 2), (125, 2), (126, 4), (65535, 4), (65536, 10)] {
            let payload = [UInt8](repeating: 0x41, count: length)
            #expect(WebSocketFraming.frame(opcode: 1, payload: payload).count == headLength + length)
            let masked = WebSocketFraming.frame(opcode: 2, payload: payload, mask: [1, 2, 3, 4])
            #expect(masked.count == headLength + 4 + length)
            #expect(masked[1] & 0x80 != 0, "the mask bit of a \(length)-byte frame")
        }
        let masked = WebSocketFraming.frame(opcode: 1, payload: [0x10, 0x20, 0x30, 0x40, 0x50], mask: [1, 2, 3, 4])
        #expect(masked == [0x81, 0x85, 1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44, 0x51])
    }

    @Test(arguments: [32, 16 * 1024, 70_000])
    func wireLoopEchoesAndReadsAFloodFromTheServer(size: Int) throws {
        let server = try WebSocketServer()
        let payload = [UInt8](repeating: 0x78, count: size)
        let echo = try WebSocketWireLoop(url: server.url("/echo"), payload: payload)
        #expect(echo.echo(200))
        let flood = try WebSocketWireLoop(url: server.url("/flood/\(size)"), payload: payload)
        #expect(flood.flood(3_000))
        #expect(flood.flood(1))
    }

    @Test func serverRefusesAnUnknownPath() throws {
        let server = try WebSocketServer()
        #expect(throws: LoopbackServerError.self) {
            try WebSocketWireLoop(url: server.url("/nothing"), payload: [])
        }
        #expect(WebSocketServer.floodSize("/flood/32") == 32)
        #expect(WebSocketServer.floodSize("/flood/99999999999999999999") == nil)
        #expect(WebSocketServer.floodSize("/flood/-1") == nil)
        #expect(WebSocketServer.floodSize("/flood/\(2 << 20)") == nil)
    }

    /// The server unmasks what it echoes, answers a ping with a pong of the same payload and a close with the same
    /// code, and ends a connection whose frame claims more than it accepts.
    @Test func serverUnmasksAnswersPingsAndClosesAndBoundsAFrame() throws {
        let server = try WebSocketServer()
        let socket = try RawClient(url: server.url("/echo"))
        socket.send(WebSocketFraming.frame(opcode: 1, payload: Array("hello".utf8), mask: [9, 8, 7, 6]))
        #expect(socket.receive(7) == [0x81, 5] + Array("hello".utf8))
        socket.send(WebSocketFraming.frame(opcode: 9, payload: [1, 2], mask: [5, 5, 5, 5]))
        #expect(socket.receive(4) == [0x8A, 2, 1, 2])
        socket.send(WebSocketFraming.frame(opcode: 8, payload: [0x03, 0xE8], mask: [1, 1, 1, 1]))
        #expect(socket.receive(4) == [0x88, 2, 0x03, 0xE8])
        #expect(socket.receive(1) == [], "the server closes after the close handshake")

        let huge = try RawClient(url: server.url("/echo"))
        huge.send([0x82, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(huge.receive(1) == [], "a 2^63-byte frame ends the connection")
    }

    @Test(.enabled(if: PythonReference.isInstalled)) func pythonClientTimesEchoAndFloodBatches() throws {
        let server = try WebSocketServer()
        let echo = try PythonWebSocketClient(url: server.url("/echo"), size: 32)
        let echoBatch = echo.batch(.echo)
        #expect((echoBatch(50) ?? 0) > 0)
        #expect((echoBatch(50) ?? 0) > 0, "the connection stays for the next batch")
        let flood = try PythonWebSocketClient(url: server.url("/flood/16384"), size: 16384)
        #expect((flood.batch(.flood)(500) ?? 0) > 0)
    }

    @Test func pythonClientFailsWithWhatItPrintedWhenItCannotConnect() throws {
        let server = try WebSocketServer()
        #expect(throws: LoopbackServerError.self) {
            try PythonWebSocketClient(url: server.url("/nothing"), size: 32)
        }
    }

    @Test func rowSaysSoWhenASideFails() {
        var table = Table()
        let failing: WebSocketBatch = { _ in nil }
        let working: WebSocketBatch = { _ in 1_000 }
        FetchBench.webSocketRow(
            into: &table, "A vs B", options: Options(["--quick"]), count: 10, working, failing, target: nil)
        let rendered = table.render(title: "", footer: "", judged: false)
        #expect(rendered.contains("| A vs B  | failed (see above) |"), "\(rendered)")
        var measured = Table()
        FetchBench.webSocketRow(
            into: &measured, "A vs A", options: Options(["--quick"]), count: 10, working, working, target: nil)
        #expect(measured.render(title: "", footer: "", judged: false).contains("1.000x"))
    }

    @Test func websocketIsAGroupOfOnly() {
        #expect(Options(["--only", "websocket"]).problem == nil)
        #expect(Options(["--only", "websocket"]).runs("websocket"))
        #expect(!Options(["--only", "websocket"]).runs("curl"))
    }
}

/// Whether `python3` has the `websockets` package (the suite of FetchTests installs it; CI does too).
enum PythonReference {
    static let isInstalled: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import websockets"]
        process.standardError = FileHandle.nullDevice
        do {
            try Spawn.run(process)
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}

/// A blocking client socket that has done the opening handshake, for frames written by hand.
final class RawClient {
    private let socket: Int32

    init(url: URL) throws {
        #if canImport(Darwin)
            socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #else
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(url.port ?? 0).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        send(
            Array(
                ("GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let byte = receive(1)
            try #require(byte.count == 1, "the server closed during the handshake")
            head += byte
        }
        try #require(String(decoding: head, as: UTF8.self).contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
    }

    deinit {
        close(socket)
    }

    func send(_ bytes: [UInt8]) {
        _ = WebSocketFraming.sendAll(bytes, to: socket)
    }

    /// Up to `count` bytes: fewer only when the server closed.
    func receive(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while bytes.count < count {
            let received = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, count - bytes.count, 0) }
            guard received > 0 else {
                break
            }
            bytes += buffer[0..<received]
        }
        return bytes
    }
}
