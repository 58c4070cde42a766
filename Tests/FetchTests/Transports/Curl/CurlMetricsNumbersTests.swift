#if os(Linux)
    import Foundation
    import Testing

    @testable import Fetch

    /// What libcurl reports is read as untrusted: a phase that would end before the one before it, a negative or
    /// absurd time, an HTTP version libcurl 7.88 does not name, or an address that is not one, is `nil` in the metrics,
    /// never a made-up number and never a trap.
    @Suite struct CurlMetricsNumbersTests {
        @Test func aPhaseIsTheDifferenceOfTwoEndsInOrder() {
            #expect(CurlMetrics.phase(from: 1_000, to: 251_000) == 0.25)
            #expect(CurlMetrics.phase(from: 7, to: 7) == 0)
        }

        /// Ends that cannot be: unknown, reversed, negative, or more than a year apart.
        static let impossibleEnds: [(from: Int64?, to: Int64?)] = [
            (nil, 5), (5, nil), (10, 9), (-1, 5), (Int64.min, 0), (0, Int64.max), (0, 31_536_000_000_001),
        ]

        @Test(arguments: impossibleEnds)
        func aPhaseFromNumbersThatCannotBeIsNil(_ ends: (from: Int64?, to: Int64?)) {
            #expect(CurlMetrics.phase(from: ends.from, to: ends.to) == nil)
        }

        @Test func onlyTheHTTPVersionsLibcurlNamesAreNamed() {
            // curl.h: CURL_HTTP_VERSION_1_1 is 2, CURL_HTTP_VERSION_2_0 is 3.
            #expect(CurlMetrics.httpVersion(2) == "HTTP/1.1")
            #expect(CurlMetrics.httpVersion(3) == "HTTP/2")
            for unknown in [0, -1, 99, Int.max, Int.min] {
                #expect(CurlMetrics.httpVersion(unknown) == nil)
            }
        }

        @Test(arguments: [
            "", "example.com", "127.0.0.1; rm -rf", String(repeating: "1", count: 46), "::1\n", "１２７.0.0.1",
        ])
        func aRemoteAddressThatIsNotAnIPAddressIsNil(_ text: String) {
            #expect(CurlMetrics.address(text) == nil)
        }

        @Test(arguments: ["127.0.0.1", "::1", "fe80::1:2:3", "2001:db8::ff00:42:8329"])
        func anIPAddressIsKept(_ text: String) {
            #expect(CurlMetrics.address(text) == text)
        }
    }
#endif
