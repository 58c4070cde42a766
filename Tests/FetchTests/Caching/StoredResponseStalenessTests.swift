import Foundation
import Testing

@testable import Fetch

/// The freshness and staleness arithmetic that `stale-while-revalidate` and `stale-if-error` (RFC 5861) need.
@Suite struct StoredResponseStalenessTests {
    static let received = StoredResponses.requestTime

    static func stored(_ cacheControl: String) -> StoredResponse {
        StoredResponse(
            key: "https://api.example.com/x",
            status: 200,
            headers: ["Cache-Control": cacheControl, "ETag": "\"1\""],
            data: Data(),
            url: nil,
            varyingValues: [:],
            requestTime: received,
            responseTime: received
        )
    }

    static func at(_ seconds: TimeInterval) -> Date {
        received.addingTimeInterval(seconds)
    }

    @Test func readsTheRFC5861Directives() {
        let control = CacheControl("max-age=60, stale-while-revalidate=30, stale-if-error=\"86400\"")
        #expect(control.staleWhileRevalidate == 30)
        #expect(control.staleIfError == 86400)
        #expect(CacheControl("stale-while-revalidate").staleWhileRevalidate == nil)
        #expect(CacheControl("stale-if-error=-5").staleIfError == nil)
        #expect(CacheControl("max-age=60").staleIfError == nil)
    }

    @Test func staleWhileRevalidateCoversItsWindowAfterExpiryOnly() {
        let response = Self.stored("max-age=60, stale-while-revalidate=30")
        #expect(response.staleness(at: Self.at(30)) == 0)
        #expect(!response.isUsableStale(at: Self.at(30), forError: false))  // fresh: served as fresh
        #expect(response.staleness(at: Self.at(75)) == 15)
        #expect(response.isUsableStale(at: Self.at(75), forError: false))
        #expect(response.isUsableStale(at: Self.at(90), forError: false))
        #expect(!response.isUsableStale(at: Self.at(91), forError: false))
        #expect(!response.isUsableStale(at: Self.at(75), forError: true))  // no stale-if-error
    }

    @Test func staleIfErrorCoversItsWindowWhenRevalidationFails() {
        let response = Self.stored("max-age=10, stale-if-error=3600")
        #expect(response.isUsableStale(at: Self.at(3000), forError: true))
        #expect(response.isUsableStale(at: Self.at(3610), forError: true))
        #expect(!response.isUsableStale(at: Self.at(3611), forError: true))
        #expect(!response.isUsableStale(at: Self.at(20), forError: false))
    }

    @Test(arguments: ["max-age=10, must-revalidate, stale-if-error=3600", "no-cache, stale-if-error=3600"])
    func mustRevalidateAndNoCacheForbidStaleUse(cacheControl: String) {
        let response = Self.stored(cacheControl + ", stale-while-revalidate=3600")
        #expect(!response.isUsableStale(at: Self.at(60), forError: true))
        #expect(!response.isUsableStale(at: Self.at(60), forError: false))
    }

    @Test func aResponseWithOnlyAValidatorIsStaleAtOnceAndUsableWithinItsWindow() {
        let response = Self.stored("stale-if-error=60")
        #expect(!response.isFresh(at: Self.at(0)))
        #expect(response.isUsableStale(at: Self.at(0), forError: true))
        #expect(response.isUsableStale(at: Self.at(60), forError: true))
        #expect(!response.isUsableStale(at: Self.at(61), forError: true))
    }
}
