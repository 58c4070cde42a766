#if os(Linux)
    import Fetch
    import FetchTesting
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `CurlTransport`'s event loop under bursts of more calls than it has connections, against nginx over TLS.
    @Suite struct CurlLoopWorkerTests {
        /// The HTTP versions a burst is sent over: HTTP/1.1 queues calls for a connection, HTTP/2 multiplexes them.
        enum Version: String, CaseIterable, Sendable {
            case http1
            case http2

            var option: CurlTransport.Options.HTTPVersion {
                self == .http1 ? .http1 : .http2OverTLS
            }
        }

        /// 256 calls at once over 6 connections, 8 times: every call of a burst ends within a small multiple of the
        /// median call's time from the burst's start. libcurl 7.88 strands a queued call now and then (its timer
        /// dropped at the end of `curl_multi_perform`), which then waited for the loop's 1 s poll timeout.
        @Test(
            .enabled(if: NginxTestServer.executable != nil, "nginx is not installed and could not be installed"),
            arguments: Version.allCases)
        func aBurstOfQueuedCallsEndsWithoutAStall(version: Version) async throws {
            let certificate = try TestCertificate.shared.get()
            let options = CurlTransport.Options(
                maximumConnectionsPerHost: 6, httpVersion: version.option,
                certificateAuthorityFile: certificate.certificate)
            let transport = try CurlTransport(options: options)
            let nginx = try await NginxTestServer.start(answering: transport, requestsPerConnection: 1_000_000)
            let url = nginx.baseURL.appendingPathComponent("burst")
            var times: [Duration] = []
            for _ in 0..<8 {
                times += try await Self.burst(of: 256, to: url, on: transport)
            }
            let sorted = times.sorted()
            let median = sorted[sorted.count / 2]
            let worst = try #require(sorted.last)
            // A call waits for the ones queued before it: the last of a burst ends about twice the median's time
            // after the start. A stranded call ended a second later still.
            let bound = max(median * 3, median + .milliseconds(600))
            #expect(worst <= bound, "\(version): median \(median), worst \(worst) of \(times.count) calls")
        }

        /// Sends `count` GETs of `url` at once and waits (at most 30 s) for all: how long after the start each ended.
        static func burst(of count: Int, to url: URL, on transport: CurlTransport) async throws -> [Duration] {
            let clock = ContinuousClock()
            let start = clock.now
            let ended = Captured<Result<Duration, any Error>>()
            for _ in 0..<count {
                transport.send(URLRequest(url: url), timeout: 30) { result in
                    let time = clock.now - start
                    ended.capture(result.map { _ in time })
                }
            }
            return try await ended.wait(for: count, timeout: 30).map { try $0.get() }
        }
    }
#endif
