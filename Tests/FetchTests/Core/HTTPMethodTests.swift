import Fetch
import Testing

@Suite struct HTTPMethodTests {
    @Test func standardMethodsSendTheirUppercaseNames() {
        let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options, .trace, .connect]
        #expect(
            methods.map(\.rawValue) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"])
    }

    @Test func customMethodsComeFromStringLiteralsAndEqualTheirRawValue() {
        let purge: HTTPMethod = "PURGE"
        #expect(purge == HTTPMethod(rawValue: "PURGE"))
        #expect(purge.description == "PURGE")
        #expect(Set<HTTPMethod>([.get, "GET", .post]).count == 2)
    }

    @Test func methodNamesAreCaseSensitive() {
        #expect(HTTPMethod(rawValue: "get") != .get)
    }

    @Test func safeAndIdempotentMethodsFollowRFC9110() {
        let all: [HTTPMethod] = [.get, .head, .options, .trace, .put, .delete, .post, .patch, .connect, "PURGE"]
        #expect(all.filter(\.isSafe) == [.get, .head, .options, .trace])
        #expect(all.filter(\.isIdempotent) == [.get, .head, .options, .trace, .put, .delete])
    }
}
