import Fetch
import Foundation
import Testing

@Suite struct CacheControlTests {
    @Test func readsAndWritesIMFFixdates() throws {
        let date = try #require(HTTPDate.date(from: "Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(date.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.string(from: date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.date(from: "0") == nil)
    }

    @Test func readsCacheControlDirectives() {
        let control = CacheControl(#"Private, max-age="30", no-cache="Set-Cookie", must-revalidate, x-unknown=1"#)
        #expect(control.isPrivate)
        #expect(control.maxAge == 30)
        #expect(control.noCache)
        #expect(control.mustRevalidate)
        #expect(!control.noStore)
    }
}
