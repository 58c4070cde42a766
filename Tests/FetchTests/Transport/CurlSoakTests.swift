#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Many requests through one `CurlTransport`: memory stays flat, so nothing is kept per request.
    @Suite(.enabled(if: HeavyTests.areEnabled, HeavyTests.reason)) struct CurlSoakTests {
        /// The process's resident memory, in bytes (`/proc/self/statm`).
        static func residentBytes() throws -> Int {
            let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
            guard fields.count > 1, let pages = Int(fields[1]) else {
                throw TestServerError("cannot read /proc/self/statm")
            }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }

        /// Sends `count` requests, `lanes` at a time, and checks every answer.
        static func run(_ count: Int, lanes: Int, on transport: CurlTransport, to url: URL) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<lanes {
                    group.addTask {
                        for _ in stride(from: lane, to: count, by: lanes) {
                            let (response, data) = try await transport.get(url).get()
                            guard response.statusCode == 200, !data.isEmpty else {
                                throw TestServerError("GET \(url) → \(response.statusCode), \(data.count) bytes")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        // Against nginx: the Python test server answers a keep-alive request in about 45 ms (it writes head and
        // body apart, and Nagle's algorithm waits for the client's delayed ACK), far too slow for 20,000 requests.
        @Test(.enabled(if: NginxTestServer.executable != nil, "nginx is not installed and could not be installed"))
        func twentyThousandRequestsKeepMemoryFlat() async throws {
            let certificate = try TestCertificate.shared.get()
            let transport = try CurlTransport(options: .init(certificateAuthorityFile: certificate.certificate))
            let nginx = try await NginxTestServer.start(answering: transport)
            let url = nginx.baseURL.appendingPathComponent("soak")
            try await Self.run(4_000, lanes: 8, on: transport, to: url)  // warm up: pools, caches, connections
            let before = try Self.residentBytes()
            try await Self.run(20_000, lanes: 8, on: transport, to: url)
            let growth = try Self.residentBytes() - before
            // A leaked response, body or handle per request would be 20 MB or more.
            #expect(growth < 8 << 20, "resident memory grew by \(growth >> 10) KiB over 20,000 requests")
        }
    }
#endif
