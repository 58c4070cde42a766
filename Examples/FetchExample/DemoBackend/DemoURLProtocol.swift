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
/// let session = Session(configuration: configuration, callbackQueue: queue)
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
        let headers = ["Content-Type": "application/json", "Content-Length": String(answer.body.count)]
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: answer.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

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
