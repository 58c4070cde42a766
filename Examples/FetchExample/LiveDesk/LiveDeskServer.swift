import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The demo company's live "desk" channel, a WebSocket at `ws://127.0.0.1:<port>/live`, served from this process.
///
/// The embedded backend answers HTTP in process through a `URLProtocol`, but a WebSocket is a connection that stays
/// open after its handshake, and a `URLProtocol` cannot stand in for one: so `fetch-example` serves the channel from
/// a real socket on loopback, on a port the system picks, for as long as the run lasts. It is a small RFC 6455
/// server on POSIX sockets, a thread per connection, so that the client goes through a real transport.
///
/// The handshake needs `Authorization: Bearer <token>` that `authorize` accepts, else it answers 401 with the API's
/// error body, so a client's token refresh can log in again and retry. The first connection gets each of `updates`
/// as a text message; then, once the client has posted, the desk "restarts": it drops that connection without a
/// close frame, as a server that goes down does, so that the client shows its reconnection. On a later connection
/// the channel echoes the client's next message back as `{"kind":"echo","text":…}`, and closes with 1000. A message over 64 KiB closes with 1009, text that is not UTF-8 with 1007, and an unmasked or malformed
/// frame with 1002.
///
/// `@unchecked Sendable`: its mutable properties, `isStopped` and `connections`, are only touched while holding
/// `lock`; the listening socket is used and closed by the accepting thread alone.
final class LiveDeskServer: @unchecked Sendable {
    /// The base URL of the channel's server, `ws://127.0.0.1:<port>/`; the channel is its `live` path.
    let baseURL: URL

    private let listener: Int32
    private let updates: [String]
    private let authorize: @Sendable (String?) -> String?
    private let lock = NSLock()
    private var isStopped = false
    /// The connections opened so far.
    private var connections = 0

    /// The largest message the server reads.
    static let maximumMessageSize = 64 * 1024
    /// The largest opening handshake the server reads.
    private static let maximumHeadSize = 16 * 1024
    /// The key suffix of RFC 6455 §1.3.
    private static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Starts serving on 127.0.0.1, on a port the system picks.
    ///
    /// - Parameters:
    ///   - updates: The JSON texts the channel sends when a client connects.
    ///   - authorize: Given the handshake's `Authorization` field, `nil` to let the client in, or the reason to
    ///     answer 401.
    /// - Throws: ``LiveDeskError`` when the socket cannot be opened.
    init(updates: [String], authorize: @escaping @Sendable (String?) -> String?) throws {
        let listener = socket(AF_INET, Self.streamType, 0)
        guard listener >= 0 else {
            throw LiveDeskError("open a socket for the live desk: \(String(cString: strerror(errno)))")
        }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound, let url = URL(string: "ws://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/") else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw LiveDeskError("listen on 127.0.0.1 for the live desk: \(reason)")
        }
        self.listener = listener
        self.baseURL = url
        self.updates = updates
        self.authorize = authorize
        let thread = Thread { [self] in acceptConnections() }
        thread.name = "fetch-example.live-desk"
        thread.start()
    }

    /// Stops accepting connections and closes the listening socket; a connection being served finishes on its own.
    func stop() {
        lock.withLock { isStopped = true }
    }

    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        private static let streamType = SOCK_STREAM
    #endif

    // MARK: - Connections

    /// Accepts connections until ``stop()``, polling so that it notices the stop within 50 ms.
    private func acceptConnections() {
        while !lock.withLock({ isStopped }) {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else {
                continue
            }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                continue
            }
            // A client that stops talking frees its thread after 30 s. (5 s was too short for the in-process run of
            // the tests, where a thousand others share two cores: CI saw the desk drop a client that had not posted yet.)
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            #if canImport(Darwin)
                var noSignal: Int32 = 1
                setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
            #endif
            Thread { [self] in
                serve(Connection(descriptor: connection))
                close(connection)
            }.start()
        }
        close(listener)
    }

    /// The handshake, the updates, the echo and the closing handshake of one connection.
    private func serve(_ connection: Connection) {
        guard let head = connection.readHead(limit: Self.maximumHeadSize) else {
            return
        }
        guard let key = answerHandshake(head, on: connection) else {
            return
        }
        let accept = Data(SHA1.digest(Data((key + Self.acceptGUID).utf8))).base64EncodedString()
        connection.writeText(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(accept)\r\n\r\n")
        let isFirst = lock.withLock {
            connections += 1
            return connections == 1
        }
        if isFirst {
            for update in updates {
                connection.sendFrame(opcode: 0x1, payload: Data(update.utf8))
            }
        }
        while true {
            switch connection.readMessage(limit: Self.maximumMessageSize) {
            case .message where isFirst:
                return  // the desk restarts: the connection closes with no close frame
            case .message(let opcode, let payload):
                connection.sendFrame(opcode: 0x1, payload: Self.echo(of: payload, opcode: opcode))
                connection.sendClose(code: 1000, reason: "the desk is closed")
                connection.awaitClose()
                return
            case .close:
                // The client left first: answer its close frame, as RFC 6455 §5.5.1 asks.
                connection.sendClose(code: 1000, reason: "")
                return
            case .failed(let code, let reason):
                connection.sendClose(code: code, reason: reason)
                return
            case .gone:
                return
            }
        }
    }

    /// Checks the opening handshake in `head`, answers it when it is refused, and returns its key when it is not.
    private func answerHandshake(_ head: String, on connection: Connection) -> String? {
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                continue
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard requestLine.count == 3, requestLine[0] == "GET", requestLine[1] == "/live" else {
            connection.refuse(404, "no WebSocket at \(requestLine.dropFirst().first ?? "?"); the channel is GET /live")
            return nil
        }
        let connectionTokens = (fields["connection"] ?? "").lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket", connectionTokens.contains("upgrade"),
            fields["sec-websocket-version"] == "13", let key = fields["sec-websocket-key"],
            Data(base64Encoded: key)?.count == 16
        else {
            connection.refuse(
                400,
                "GET /live is a WebSocket: it needs Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Version: 13"
                    + " and a 16-byte Sec-WebSocket-Key")
            return nil
        }
        if let reason = authorize(fields["authorization"]) {
            connection.refuse(401, reason)
            return nil
        }
        return key
    }

    /// The server's echo of a client's message: the `text` of a JSON object that has one, else the whole text (or,
    /// for a binary message, its size).
    private static func echo(of payload: Data, opcode: UInt8) -> Data {
        var text = opcode == 0x1 ? String(decoding: payload, as: UTF8.self) : "\(payload.count) bytes"
        do {
            if let object = try JSONSerialization.jsonObject(with: payload) as? [String: Any],
                let posted = object["text"] as? String
            {
                text = posted
            }
        } catch {
            // Not JSON: the message is echoed whole.
        }
        do {
            return try JSONSerialization.data(withJSONObject: ["kind": "echo", "text": text], options: .sortedKeys)
        } catch {
            return Data(#"{"kind":"echo","text":""}"#.utf8)
        }
    }
}

/// The live desk server could not start.
struct LiveDeskError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = "cannot \(description)"
    }
}
