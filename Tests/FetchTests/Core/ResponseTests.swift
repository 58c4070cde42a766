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
}
