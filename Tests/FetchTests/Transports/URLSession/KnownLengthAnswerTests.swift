import Foundation
import Testing

@testable import Fetch

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A call whose response says how long its body is gets its answer as soon as that many bytes have arrived, before
/// `URLSession` reports the task complete; every other response waits for the task to complete.
///
/// These drive a `TaskCall` as `Session`'s delegate does, chunk by chunk, with no network: whether the answer comes
/// early is otherwise a matter of microseconds. The end-to-end behaviour (bodies whole, compressed bodies decoded,
/// limits kept) is in `MaximumResponseSizeTests` and `SessionTests`, against the loopback server.
@Suite struct KnownLengthAnswerTests {
    private static let url = URL(fileURLWithPath: "/items")

    /// The answers a call gives, in order.
    private final class Answers: Sendable {
        let received = Locked<[(body: Data?, status: Int?, failed: Bool)]>([])

        var all: [(body: Data?, status: Int?, failed: Bool)] {
            received.withLock { $0 }
        }
    }

    private func call(limit: Int = 1 << 20) -> (TaskCall, Answers) {
        let call = TaskCall(
            registry: CallRegistry(), request: TestRequest(Self.url), originalURL: Self.url, limit: limit)
        let answers = Answers()
        call.whenAnswered { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode
            answers.received.withLock { $0.append((data, status, error != nil)) }
        }
        return (call, answers)
    }

    private func head(status: Int = 200, _ headers: [String: String]) throws -> HTTPURLResponse {
        try #require(HTTPURLResponse(url: Self.url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers))
    }

    @Test func theAnswerComesWithTheLastDeclaredByteAndOnlyOnce() throws {
        let (call, answers) = call()
        let head = try head(["Content-Length": "10"])
        call.receive(head: head)
        #expect(call.receive(Data("abcd".utf8)) == .more)
        #expect(answers.all.isEmpty)

        #expect(call.receive(Data("efghij".utf8)) == .whole)
        #expect(answers.all.count == 1)
        #expect(answers.all.first?.body == Data("abcdefghij".utf8))
        #expect(answers.all.first?.status == 200)

        // URLSession reports the task complete later: the call has answered already.
        call.complete(response: head, error: nil)
        #expect(answers.all.count == 1)
    }

    @Test func anIdentityEncodingIsNoEncoding() throws {
        let (call, answers) = call()
        call.receive(head: try head(["Content-Length": "3", "Content-Encoding": " Identity"]))
        #expect(call.receive(Data("abc".utf8)) == .whole)
        #expect(answers.all.count == 1)
    }

    /// Responses whose delivered body is not the header's length, or that `URLSession` may still act on.
    static let waitingForCompletion: [(name: String, status: Int, headers: [String: String])] = [
        ("no Content-Length", 200, [:]),
        (
            "compressed: URLSession delivers the decoded bytes", 200,
            ["Content-Length": "3", "Content-Encoding": "gzip"]
        ),
        ("chunked", 200, ["Content-Length": "3", "Transfer-Encoding": "chunked"]),
        ("401: URLSession may answer it with stored credentials", 401, ["Content-Length": "3"]),
        ("404", 404, ["Content-Length": "3"]),
    ]

    @Test(arguments: waitingForCompletion)
    func otherResponsesWaitForTheTaskToComplete(_ response: (name: String, status: Int, headers: [String: String]))
        throws
    {
        let (call, answers) = call()
        let head = try head(status: response.status, response.headers)
        call.receive(head: head)
        #expect(call.receive(Data("abc".utf8)) == .more, "\(response.name)")
        #expect(answers.all.isEmpty, "\(response.name)")

        call.complete(response: head, error: nil)
        #expect(answers.all.count == 1, "\(response.name)")
        #expect(answers.all.first?.body == Data("abc".utf8), "\(response.name)")
        #expect(answers.all.first?.status == response.status, "\(response.name)")
    }

    @Test func aBodyLongerThanTheLimitIsStillRefusedWhateverItsHeadSays() throws {
        let (call, answers) = call(limit: 4)
        call.receive(head: try head(["Content-Length": "6"]))
        #expect(call.receive(Data("abc".utf8)) == .more)
        #expect(call.receive(Data("def".utf8)) == .tooLarge)
        #expect(answers.all.isEmpty)
    }

    @Test func aFailedTaskThatHadNotAnsweredReportsItsError() throws {
        let (call, answers) = call()
        let head = try head(["Content-Length": "10"])
        call.receive(head: head)
        #expect(call.receive(Data("abcd".utf8)) == .more)

        call.complete(response: head, error: URLError(.networkConnectionLost))
        #expect(answers.all.count == 1)
        #expect(answers.all.first?.failed == true)
        #expect(answers.all.first?.body == nil)
    }
}
