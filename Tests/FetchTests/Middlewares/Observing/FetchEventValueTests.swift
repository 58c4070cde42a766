import Fetch
import Foundation
import Testing

/// `FetchEvent` keeps its optional fields in shared storage: it must still behave as a value.
@Suite struct FetchEventValueTests {
    struct Ping: Request {
        let url = URL(fileURLWithPath: "/ping")
    }

    @Test func aCopyChangedAfterwardsLeavesTheOriginalAsItWas() {
        var original = FetchEvent(.finished, request: Ping(), reason: "first")
        original.status = 200
        original.duration = 0.5
        var copy = original
        copy.status = 503
        copy.reason = nil
        copy.offset = 42
        #expect(original.status == 200)
        #expect(original.reason == "first")
        #expect(original.offset == nil)
        #expect(original.duration == 0.5)
        #expect(copy.status == 503)
        #expect(copy.reason == nil)
        #expect(copy.offset == 42)
        #expect(copy.duration == 0.5, "the fields a copy did not change stay the original's")
    }

    @Test func everyFieldReadsBackWhatWasSetAndNilOtherwise() {
        let request = Ping()
        var event = FetchEvent(FetchEvent.Name("app.custom"), request: request)
        #expect(event.attempt == nil && event.status == nil && event.metrics == nil && event.trace == nil)
        event.attempt = 2
        event.delay = 1.5
        event.bytes = 10
        event.error = FetchError.cancelled(request: request)
        event.redirect = AttemptMetrics.Redirect(url: request.url, status: 301, location: request.url)
        event.initiator = request
        event.lastEventID = "7"
        event.closeCode = .goingAway
        event.closedByServer = true
        #expect(event.attempt == 2)
        #expect(event.delay == 1.5)
        #expect(event.bytes == 10)
        #expect(event.error != nil)
        #expect(event.redirect?.status == 301)
        #expect(event.initiator?.url == request.url)
        #expect(event.lastEventID == "7")
        #expect(event.closeCode == .goingAway)
        #expect(event.closedByServer == true)
        event.attempt = nil
        #expect(event.attempt == nil)
        #expect(event.bytes == 10)
    }

    /// Events cross threads: one copy read on many while the original changes on this one.
    @Test func copiesReadOnOtherThreadsSeeTheirOwnValue() async {
        var event = FetchEvent(.finished, request: Ping())
        event.status = 200
        let shared = event
        await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<8 {
                group.addTask { shared.status }
            }
            event.status = 500
            for await status in group {
                #expect(status == 200)
            }
        }
        #expect(event.status == 500)
    }
}
