// The code sample of FetchTesting's DocC landing page (Sources/FetchTesting/FetchTesting.docc/FetchTesting.md),
// compiled and run here so that it cannot rot; DocSampleTests checks that the DOC-BEGIN…DOC-END region matches it.

import Fetch
import FetchTesting
import Foundation
import Testing

struct FetchTestingLandingPage {
    typealias User = DocFixtures.User

    // DOC-BEGIN
    @Test func sendsTheSearchAndReadsTheResults() throws {
        let mock = MockPerformer(routes: [.get("/search", .json(#"[{"id": 1, "name": "Ada"}]"#))])
        let spy = SpyPerformer(forwardingTo: mock)
        let users = Captured<Result<[User], any Error>>()
        spy.perform(APIRequest(baseURL).path("search").query("q", "Ada"), completion: users.capture)

        #expect(spy.requests.first?.url.query == "q=Ada")
        #expect(try users.value?.get().map(\.name) == ["Ada"])
    }
    // DOC-END
}
