import Fetch
import Foundation
import Testing

@Suite struct ResponseTests {
    @Test func headerLookupIgnoresCase() {
        let response = response(headers: ["Content-Type": "application/json", "ETag": "\"v1\""])
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["CONTENT-TYPE"] == "application/json")
        #expect(response.headers["etag"] == "\"v1\"")
        #expect(response.headers["Content-Length"] == nil)
    }

    @Test func initDefaultsToNoHeadersNoBodyAndNoURL() {
        let response = Response(status: 204, originalRequest: TestRequest("https://example.test/"))
        #expect(response.headers.isEmpty)
        #expect(response.data == nil)
        #expect(response.url == nil)
        #expect(response.originalRequest.url.absoluteString == "https://example.test/")
    }

    @Test(arguments: [(199, false), (200, true), (204, true), (299, true), (300, false), (404, false)])
    func successMeans2xx(status: Int, isSuccess: Bool) {
        #expect(response(status: status).isSuccess == isSuccess)
    }

    @Test func editingACopyLeavesTheOriginalAsItWas() {
        let original = response(status: 200, headers: ["ETag": "\"v1\""], body: "one")
        var edited = original
        edited.status = 203
        edited.data = Data("two".utf8)
        edited.headers["ETag"] = "\"v2\""
        edited.metrics = AttemptMetrics(start: Date(timeIntervalSince1970: 7), duration: 0.25)

        #expect(original.status == 200)
        #expect(original.data == Data("one".utf8))
        #expect(original.headers["etag"] == "\"v1\"")
        #expect(original.metrics == nil)
        #expect(edited.status == 203)
        #expect(edited.data == Data("two".utf8))
        #expect(edited.headers["etag"] == "\"v2\"")
        #expect(edited.metrics?.duration == 0.25)
        #expect(edited.originalRequest.url == original.originalRequest.url)
    }

    @Test func copiesSentToOtherThreadsKeepTheirOwnEdits() async {
        let shared = response(status: 200, body: "shared")
        let statuses = await withTaskGroup(of: (Int, Int).self) { group in
            for status in 300..<364 {
                group.addTask {
                    var mine = shared
                    mine.status = status
                    mine.data = Data("\(status)".utf8)
                    return (status, mine.status == status && mine.data == Data("\(status)".utf8) ? status : -1)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 64)
        #expect(statuses.allSatisfy { $0.0 == $0.1 })
        #expect(shared.status == 200)
        #expect(shared.data == Data("shared".utf8))
    }
}
