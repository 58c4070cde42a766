import Foundation
import Testing

@testable import Fetch

/// The rule that reads how a `URLSessionWebSocketTask` ended (Apple platforms), run on Linux: Fetch's own 1009
/// comes from the task's refusal of a message over the limit, never from a server that closed with 1009.
@Suite struct WebSocketTaskEndingTests {
    let tooLong = NSError(domain: NSPOSIXErrorDomain, code: Int(POSIXErrorCode.EMSGSIZE.rawValue))

    @Test func theTasksMessageTooLongFailureIsFetchsOwnLimit() {
        #expect(WebSocketTaskEnding.of(error: tooLong, serverClose: nil, taskCloseCode: 1009) == .overMessageLimit)
        #expect(WebSocketTaskEnding.of(error: tooLong, serverClose: nil, taskCloseCode: 0) == .overMessageLimit)
    }

    @Test func aServersCloseWith1009IsTheServersNotFetchsLimit() {
        let ending = WebSocketTaskEnding.of(
            error: URLError(.networkConnectionLost), serverClose: (1009, "your message was too big"),
            taskCloseCode: 1009)
        #expect(ending == .closedByServer(code: 1009, reason: "your message was too big"))
    }

    @Test func a1009WithoutAServerCloseFrameIsTheOneTheTaskSent() {
        #expect(WebSocketTaskEnding.of(error: nil, serverClose: nil, taskCloseCode: 1009) == .overMessageLimit)
    }

    @Test func aConnectionThatEndedWithoutACloseFrameIs1006() {
        let lost = URLError(.networkConnectionLost)
        #expect(WebSocketTaskEnding.of(error: lost, serverClose: nil, taskCloseCode: 0) == .dropped(code: 1006))
        #expect(WebSocketTaskEnding.of(error: lost, serverClose: nil, taskCloseCode: 1001) == .dropped(code: 1001))
    }
}
