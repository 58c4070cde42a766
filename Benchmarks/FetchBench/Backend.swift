import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One item of the JSON payloads: a realistic mix of numbers, strings and an array.
struct Item: Codable, Parsable {
    let id: Int
    let name: String
    let email: String
    let active: Bool
    let score: Double
    let tags: [String]
}

/// The payloads both sides fetch and parse: JSON arrays of items, about 1 KB, 100 KB and 1 MB.
enum Payload {
    static let small = make(bytes: 1_000)
    static let medium = make(bytes: 100_000)
    static let large = make(bytes: 1_200_000)
    /// One item, 75 bytes: the libcurl rows' payload, where the issue measured 40 bytes of JSON, so that decoding
    /// costs each side a few microseconds rather than the 1 KB payload's 50–60.
    static let one = Data(#"[{"id":1,"name":"Fetch","email":"a@b.c","active":true,"score":1,"tags":[]}]"#.utf8)

    /// A JSON array of items of about `bytes` bytes.
    static func make(bytes: Int) -> Data {
        var items: [Item] = []
        var size = 2
        while size < bytes {
            let item = Item(
                id: items.count,
                name: "User \(items.count)",
                email: "user\(items.count)@example.com",
                active: items.count % 2 == 0,
                score: Double(items.count) * 1.5,
                tags: ["swift", "http"]
            )
            items.append(item)
            size += 120
        }
        // Encoding values the benchmark itself built cannot fail; an empty payload would show in every row.
        return (try? JSONEncoder().encode(items)) ?? Data()
    }
}

/// The header fields nginx sends with a static JSON file, which both the loopback server and the overhead row use, so
/// that reading an answer costs what it costs against nginx.
enum StaticFileHeaders {
    static func fields(contentLength: Int, date: Date) -> [(name: String, value: String)] {
        [
            ("Server", "fetch-bench"),
            ("Date", HTTPDate.string(from: date)),
            ("Content-Type", "application/json"),
            ("Content-Length", String(contentLength)),
            ("Last-Modified", "Mon, 30 Nov 2026 09:10:04 GMT"),
            ("Connection", "keep-alive"),
            ("ETag", "\"692b0a6c-3a6\""),
            ("Accept-Ranges", "bytes"),
        ]
    }
}

/// The in-process HTTP backend that both sides use in the no-server mode: a `URLProtocol` that answers from memory,
/// so that the difference between the sides is the code above `URLSession`, not the transport.
///
/// Paths: `/items-1k`, `/items-100k`, `/items-1m` (the payloads), `/slow` (1 KB after 50 ms, for deduplication),
/// `/cacheable` (1 KB with `Cache-Control: max-age=3600`). It counts the requests it answers.
final class InProcessBackend: URLProtocol {
    static let requests = Locked(0)

    override class func canInit(with request: URLRequest) -> Bool { true }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        Self.requests.withLock { $0 += 1 }
        let path = request.url?.path ?? ""
        if path == "/slow" {
            let later = Later(protocol: self)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                later.protocol.answer(path: path)
            }
        } else {
            answer(path: path)
        }
    }

    override func stopLoading() {}

    private func answer(path: String) {
        let body: Data
        var headers = ["Content-Type": "application/json"]
        switch path {
        case "/items-100k": body = Payload.medium
        case "/items-1m": body = Payload.large
        case "/cacheable":
            body = Payload.small
            headers["Cache-Control"] = "max-age=3600"
        default: body = Payload.small
        }
        headers["Content-Length"] = String(body.count)
        guard let url = request.url,
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }
}

/// Carries the backend to the thread that answers a delayed request.
///
/// `@unchecked Sendable`: URLProtocol is not Sendable, but a protocol may call its client from any thread, and the
/// backend has no mutable state of its own.
private struct Later: @unchecked Sendable {
    let `protocol`: InProcessBackend
}

/// A request for a URL, as an app would declare one.
struct Get: Request {
    let url: URL
}
