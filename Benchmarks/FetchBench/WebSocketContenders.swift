import Fetch
import Foundation
import SpawnSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the WebSocket rows time: a batch of `count` messages on one open connection (echo round trips one after the
/// other, or a flood read one way), its nanoseconds, or `nil` when the connection failed.
typealias WebSocketBatch = (_ count: Int) -> UInt64?

/// The two loops every WebSocket contender runs, named as the rows name them.
enum WebSocketLoop: String {
    /// Send a text message, wait for its echo, repeat: round trips per second.
    case echo = "echo round trips"
    /// Ask `/flood/<bytes>` for a count of messages and read them: messages per second one way.
    case flood = "messages one way"

    /// The server path this loop needs for `size`-byte messages.
    func path(size: Int) -> String {
        self == .echo ? "/echo" : "/flood/\(size)"
    }
}

/// Fetch's side: one `WebSocket` from a `Session`, sent to and iterated in a task that the batch waits for; the clock
/// starts inside the task, as the other contenders' clocks start inside their loops.
struct FetchWebSocketSide {
    let socket: WebSocket

    /// Opens `url` through `session`.
    init(session: Session, url: URL) throws {
        let opened = blocking { () -> Result<WebSocket, any Error> in
            do {
                return .success(try await session.webSocket(Get(url: url)))
            } catch {
                return .failure(error)
            }
        }
        socket = try opened.get()
    }

    /// The batch of `loop` with `size`-byte text messages.
    func batch(_ loop: WebSocketLoop, size: Int) -> WebSocketBatch {
        let socket = socket
        let text = String(repeating: "x", count: size)
        return { count in
            blocking { () -> UInt64? in
                var messages = socket.makeAsyncIterator()
                let start = now()
                do {
                    if loop == .echo {
                        for _ in 0..<count {
                            try await socket.send(text)
                            guard try await messages.next() != nil else {
                                return nil
                            }
                        }
                    } else {
                        try await socket.send(String(count))
                        for _ in 0..<count {
                            guard try await messages.next() != nil else {
                                return nil
                            }
                        }
                    }
                } catch {
                    print("fetch-bench: WebSocket \(loop.rawValue) failed: \(error)")
                    return nil
                }
                return now() - start
            }
        }
    }

    /// Closes the connection (the closing handshake runs on).
    func close() {
        socket.close()
    }
}

/// The Python `websockets` client (`websocket_client.py` beside this file), as a child process that keeps one
/// connection for the life of a row and times each batch itself, so that neither Python's start-up nor the pipe is
/// timed.
final class PythonWebSocketClient {
    private let process = Process()
    private let input: Pipe
    private let output: Pipe
    private var pending = Data()

    /// The script, found beside this source file (fetch-bench runs from its checkout).
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("websocket_client.py")

    /// Starts the client on `url` with `size`-byte messages; throws with what it printed when it cannot (the
    /// `websockets` package missing, for one).
    init(url: URL, size: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, url.absoluteString, String(size)]
        let process = process
        do {
            (input, output) = try Spawn.run(process) {
                let pipes = (Pipe(), Pipe())
                process.standardInput = pipes.0
                process.standardOutput = pipes.1
                return pipes
            }
        } catch {
            throw LoopbackServerError("python3 did not start: \(error)")
        }
        let first = readLine()
        guard first == "ready" else {
            process.waitUntilExit()
            throw LoopbackServerError(
                first.map { $0.replacingOccurrences(of: "error: ", with: "") } ?? "python3 exited")
        }
    }

    deinit {
        // End of input: the script closes its connection and exits.
        do {
            try input.fileHandleForWriting.close()
        } catch {
            print("fetch-bench: could not close the Python client's input: \(error)")
        }
        process.waitUntilExit()
    }

    /// The batch of `loop`: the nanoseconds the script measured.
    func batch(_ loop: WebSocketLoop) -> WebSocketBatch {
        { [self] count in
            input.fileHandleForWriting.write(Data("\(loop == .echo ? "echo" : "flood") \(count)\n".utf8))
            guard let line = readLine(), let seconds = Double(line), seconds.isFinite, seconds > 0 else {
                return nil
            }
            return UInt64(min(seconds, 1e6) * 1e9)
        }
    }

    /// The next line the script printed, without its newline; `nil` when it has exited.
    private func readLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                return nil
            }
            pending.append(chunk)
        }
    }
}

#if !canImport(FoundationNetworking)
    /// What an app on Apple platforms writes by hand: a `URLSessionWebSocketTask`, its `async` `send(_:)` and
    /// `receive()` in a loop. (Not compiled on Linux, where corelibs' task needs a libcurl with WebSocket support.)
    ///
    /// `@unchecked Sendable`: no mutable state; `URLSessionWebSocketTask` is thread-safe (Fetch's own Apple channel
    /// relies on the same), whether or not the SDK at hand declares it `Sendable`.
    final class URLSessionWebSocketSide: @unchecked Sendable {
        let task: URLSessionWebSocketTask

        /// Starts a task on `url` in `session`.
        init(session: URLSession, url: URL) {
            task = session.webSocketTask(with: url)
            task.maximumMessageSize = WebSocket.defaultMaximumMessageSize
            task.resume()
        }

        /// The batch of `loop` with `size`-byte text messages.
        func batch(_ loop: WebSocketLoop, size: Int) -> WebSocketBatch {
            let text = String(repeating: "x", count: size)
            return { [self] count in
                blocking { () -> UInt64? in
                    let start = now()
                    do {
                        if loop == .echo {
                            for _ in 0..<count {
                                try await self.task.send(.string(text))
                                _ = try await self.task.receive()
                            }
                        } else {
                            try await self.task.send(.string(String(count)))
                            for _ in 0..<count {
                                _ = try await self.task.receive()
                            }
                        }
                    } catch {
                        print("fetch-bench: URLSessionWebSocketTask \(loop.rawValue) failed: \(error)")
                        return nil
                    }
                    return now() - start
                }
            }
        }

        /// Sends a normal close.
        func close() {
            task.cancel(with: .normalClosure, reason: nil)
        }
    }
#endif
