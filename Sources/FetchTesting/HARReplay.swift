import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The recorded exchanges of a HAR archive, ready to answer requests: each request gets the first recorded
/// exchange that matches it and has not answered yet, so exchanges with the same key answer in recorded order.
final class HARReplay: Sendable {
    /// One recorded exchange: what it is matched on and what it answers.
    private struct Recorded: Sendable {
        let key: ExchangeKey
        let answer: MockResponse
        var hasAnswered = false
    }

    let file: URL?
    let matcher: HARMatcher
    private let recorded: Locked<[Recorded]>

    /// Reads every entry of `archive` at once; any malformed entry fails the whole archive.
    ///
    /// - Throws: `HARError` naming `file` and the JSON path of the entry's problem.
    init(_ archive: HAR, file: URL?, matcher: HARMatcher) throws {
        self.file = file
        self.matcher = matcher
        do {
            recorded = Locked(
                try archive.log.entries.enumerated().map { index, entry in try Self.recorded(entry, index) })
        } catch let error as HARError {
            throw HARError(file: file, path: error.path, reason: error.reason)
        }
    }

    /// The answer to `urlRequest` (whose request declared `fields`): the first matching exchange that has not answered yet, or when all have,
    /// the last matching one again if `repeatingLast` is set; `nil` when there is none.
    func answer(
        to urlRequest: URLRequest, declaring fields: HeaderFields = [:], repeatingLast: Bool
    ) -> MockResponse? {
        let key = ExchangeKey(urlRequest, declaring: fields)
        return recorded.withLock { recorded in
            let matching = recorded.indices.filter {
                matcher.differences(recorded: recorded[$0].key, request: key).isEmpty
            }
            if let index = matching.first(where: { !recorded[$0].hasAnswered }) {
                recorded[index].hasAnswered = true
                return recorded[index].answer
            }
            return repeatingLast ? matching.last.map { recorded[$0].answer } : nil
        }
    }

    /// The answer to `urlRequest`, which `request` made, or the error that names the closest recorded request.
    func answerOrFailure(for request: any Request, sending urlRequest: URLRequest) throws -> MockResponse {
        if let answer = answer(to: urlRequest, declaring: request.headers, repeatingLast: true) {
            return answer
        }
        let key = ExchangeKey(urlRequest, declaring: request.headers)
        var closest: (index: Int, summary: String, differences: [HARMatcher.Difference])?
        var closestWeight = Int.max
        for (index, exchange) in recorded.withLock({ $0 }).enumerated() {
            let differences = matcher.differences(recorded: exchange.key, request: key)
            let weight = differences.reduce(0) { $0 + $1.weight }
            if !differences.isEmpty, weight < closestWeight {
                closestWeight = weight
                closest = (index, exchange.key.summary, differences)
            }
        }
        throw NoRecordedAnswer(request: request, summary: key.summary, file: file, closest: closest)
    }

    /// Adds an exchange recorded just now, as one that has answered already.
    func add(_ entry: HAR.Entry) throws {
        try recorded.withLock { recorded in
            var exchange = try Self.recorded(entry, recorded.count)
            exchange.hasAnswered = true
            recorded.append(exchange)
        }
    }

    private static func recorded(_ entry: HAR.Entry, _ index: Int) throws -> Recorded {
        let path = "log.entries[\(index)]"
        let key = try ExchangeKey(entry.request, at: "\(path).request")
        let content = entry.response.content
        let body = try content.bytes(at: "\(path).response.content")
        let headers = HeaderFields(entry.response.headers.map { (name: $0.name, value: $0.value) })
        let answer = MockResponse(
            status: entry.response.status, headers: headers, data: content.text == nil ? nil : body)
        return Recorded(key: key, answer: answer)
    }
}
