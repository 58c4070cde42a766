import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLProtocol` that answers a `URLSession`'s requests from a ``DemoBackend`` in process, so that the example
/// goes through a real `Session` and `URLSession` without a server.
///
/// Register it on the configuration of the session that should use it, and send requests to the base URL that
/// ``serve(_:)`` returns:
///
/// ```swift
/// let baseURL = DemoURLProtocol.serve(backend)
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.protocolClasses = [DemoURLProtocol.self]
/// let session = Session(transport: URLSessionTransport(configuration: configuration), callbackQueue: queue)
/// ```
final class DemoURLProtocol: URLProtocol {
    /// The backends being served, by host name. `URLSession` creates protocol instances itself, so a backend can
    /// only be reached through a static; this registry is behind a lock.
    private static let backends = BackendRegistry()

    /// Serves `backend` at a host name of its own and returns its base URL, `http://demo-<unique>.invalid/`.
    static func serve(_ backend: DemoBackend) -> URL {
        backends.register(backend)
    }

    /// Stops serving the backend at `baseURL`; its requests then fail as for an unknown host.
    static func stopServing(_ baseURL: URL) {
        backends.remove(host: baseURL.host ?? "")
    }

    override class func canInit(with request: URLRequest) -> Bool {
        backends.backend(forHost: request.url?.host ?? "") != nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        guard let url = request.url, let backend = Self.backends.backend(forHost: url.host ?? "") else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        let answer = backend.answer(request, body: Self.body(of: request))
        var headers = ["Content-Type": answer.contentType]
        if answer.laterParts.isEmpty {
            headers["Content-Length"] = String(answer.body.count)
        } else {
            headers["Cache-Control"] = "no-cache"
        }
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: answer.body)
        if answer.laterParts.isEmpty {
            client?.urlProtocolDidFinishLoading(self)
        } else {
            laterParts.start(answer.laterParts, every: answer.interval, to: self)
        }
    }

    /// Called when the task is cancelled or done: a stream's parts not sent yet are not sent.
    override func stopLoading() {
        laterParts.stop()
    }

    /// A streamed answer's parts still to send (`GET api/notifications`).
    private let laterParts = PacedParts()

    /// The request's body: `URLSession` may hand it to a protocol as a stream rather than as `httpBody`.
    private static func body(of request: URLRequest) -> Data? {
        if let body = request.httpBody {
            return body
        }
        guard let stream = request.httpBodyStream else {
            return nil
        }
        stream.open()
        defer { stream.close() }
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else {
                break
            }
            body.append(buffer, count: count)
        }
        return body
    }
}

/// The backends a ``DemoURLProtocol`` serves, by host name.
///
/// `@unchecked Sendable`: `backends` is only touched while holding `lock`.
private final class BackendRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var backends: [String: DemoBackend] = [:]

    func register(_ backend: DemoBackend) -> URL {
        lock.lock()
        var host: String
        repeat {
            host = "demo-\(UUID().uuidString.prefix(8).lowercased()).invalid"
        } while backends[host] != nil
        backends[host] = backend
        lock.unlock()
        guard let url = URL(string: "http://\(host)/") else {
            preconditionFailure("http://\(host)/ is not a URL, yet it is made of letters, digits, dots and dashes")
        }
        return url
    }

    func remove(host: String) {
        lock.lock()
        backends[host] = nil
        lock.unlock()
    }

    func backend(forHost host: String) -> DemoBackend? {
        lock.lock()
        defer { lock.unlock() }
        return backends[host]
    }
}

/// Sends the later parts of a streamed answer to a ``DemoURLProtocol``'s client one at a time, each `interval` after
/// the one before, then finishes loading; or stops when the protocol does. This is what makes the embedded backend
/// stream: `URLSession` hands each part to the session's data delegate as it is loaded, as it would a chunk that
/// arrives from the network.
///
/// `@unchecked Sendable`: `owner`, `parts` and `next` are only touched while holding `lock`. The owner is weak, so a
/// protocol that the task has released sends nothing more; a `URLProtocol` may call its client from any thread.
private final class PacedParts: @unchecked Sendable {
    private let lock = NSLock()
    private weak var owner: DemoURLProtocol?
    private var parts: [Data] = []
    private var next = 0
    private let queue = DispatchQueue(label: "fetch-example.demo-backend.stream")

    func start(_ parts: [Data], every interval: Duration, to owner: DemoURLProtocol) {
        lock.lock()
        self.owner = owner
        self.parts = parts
        next = 0
        lock.unlock()
        scheduleNext(after: interval)
    }

    func stop() {
        lock.lock()
        owner = nil
        lock.unlock()
    }

    private func scheduleNext(after interval: Duration) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            sendNext(interval: interval)
        }
    }

    /// Sends the next part, and the end after the last; the client is called outside the lock, as it may call
    /// `stopLoading` back.
    private func sendNext(interval: Duration) {
        lock.lock()
        let owner = owner
        let part = next < parts.count ? parts[next] : nil
        next += 1
        let isLast = next >= parts.count
        if isLast {
            self.owner = nil
        }
        lock.unlock()
        guard let owner, let part else {
            return
        }
        owner.client?.urlProtocol(owner, didLoad: part)
        if isLast {
            owner.client?.urlProtocolDidFinishLoading(owner)
        } else {
            scheduleNext(after: interval)
        }
    }
}
