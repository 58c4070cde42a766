import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw loopback listener that records every byte each connection sends, and answers each with `200 ok` once the
/// head has arrived: what a test needs to show that nothing reached the wire, or exactly what did.
///
/// It sees the bytes before any HTTP parser does, so an injected header line or a second request shows as it was
/// sent. One connection at a time, each read bounded (64 KiB, 5 s of silence), on 127.0.0.1 only.
final class RecordingListener: @unchecked Sendable {  // `received` is behind `lock`; `socket` is set once.
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    private let socket: Int32
    private let lock = NSLock()
    private var received: [Data] = []

    /// Listens on an ephemeral port of 127.0.0.1.
    init() throws {
        let (listener, port) = try Self.makeListeningSocket()
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            close(listener)
            throw TestServerError("cannot make a URL of port \(port)")
        }
        socket = listener
        baseURL = url
        let thread = Thread { [self] in acceptConnections() }
        thread.start()
    }

    /// A socket listening on an ephemeral port of 127.0.0.1 (a backlog of 16), and the port. A client's connection
    /// is complete once it is in the backlog, accepted or not.
    static func makeListeningSocket() throws -> (socket: Int32, port: UInt16) {
        #if canImport(Glibc)
            let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let listener = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else {
            throw TestServerError("socket() failed: errno \(errno)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, generic, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw TestServerError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    deinit {
        stop()
    }

    /// Stops listening: the accept loop ends.
    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// The bytes of each connection so far, in the order they were accepted.
    var connections: [Data] {
        lock.withLock { received }
    }

    /// Every byte received, on all connections, as text (bytes that are not UTF-8 replaced).
    var allText: String {
        String(decoding: connections.reduce(Data(), +), as: UTF8.self)
    }

    private func acceptConnections() {
        while true {
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else {
                return  // stopped
            }
            serve(connection)
            close(connection)
        }
    }

    private func serve(_ connection: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        lock.withLock { received.append(Data()) }
        var bytes = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                break
            }
            bytes.append(contentsOf: buffer[0..<count])
            lock.withLock { received[received.count - 1] = bytes }
            if bytes.range(of: Data("\r\n\r\n".utf8)) != nil {
                break
            }
        }
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
        _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
    }
}
