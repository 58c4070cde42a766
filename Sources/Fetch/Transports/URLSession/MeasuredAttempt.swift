import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What Fetch measures itself of an attempt sent through `URLSession`: when it started, when the head of its answer
/// arrived, and the redirects it followed. On Linux that is all there is (swift-corelibs-foundation never delivers
/// `URLSessionTaskMetrics`); every other field of its ``AttemptMetrics`` stays `nil`.
struct MeasuredAttempt {
    private var start = Date()
    private var started = ContinuousClock.now
    private var headArrived: ContinuousClock.Instant?
    private(set) var redirects: [AttemptMetrics.Redirect] = []

    /// The attempt starts now.
    mutating func begin() {
        start = Date()
        started = .now
        headArrived = nil
        redirects = []
    }

    /// The head of the answer arrived now.
    mutating func noteHead() {
        headArrived = .now
    }

    /// `response`, a redirect, was followed to `target`.
    mutating func noteRedirect(_ response: HTTPURLResponse, to target: URL?, from sent: URL) {
        guard let target else {
            return
        }
        redirects.append(
            AttemptMetrics.Redirect(url: response.url ?? sent, status: response.statusCode, location: target))
    }

    /// The metrics so far: the last byte arrived now when `isComplete`, and is still to come otherwise.
    func metrics(isComplete: Bool) -> AttemptMetrics {
        let now = ContinuousClock.now
        var metrics = AttemptMetrics(start: start)
        metrics.timeToFirstByte = AttemptMetrics.seconds(from: started, to: headArrived ?? now)
        if isComplete {
            metrics.duration = AttemptMetrics.seconds(from: started, to: now)
        }
        metrics.redirects = redirects
        return metrics
    }

    /// The bytes of `urlRequest`'s body as Fetch hands it over: its data, or the declared length of a stream;
    /// `nil` for a stream of unknown length.
    static func bodyBytes(of urlRequest: URLRequest) -> Int? {
        if let body = urlRequest.httpBody {
            return body.count
        }
        guard urlRequest.httpBodyStream != nil else {
            return 0
        }
        return urlRequest.value(forHTTPHeaderField: "Content-Length").flatMap(WireNumber.byteCount).flatMap {
            Int(exactly: $0)
        }
    }
}
