#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `CurlTransport`'s connections, against Debian's nginx over TLS (`.ci/run` installs nginx when it is missing).
    @Suite struct CurlHTTP2Tests {
        @Test(.enabled(if: NginxTestServer.executable != nil, "nginx is not installed and could not be installed"))
        func fiftyConcurrentRequestsShareOneHTTP2Connection() async throws {
            let certificate = try TestCertificate.shared.get()
            let transport = try CurlTransport(options: .init(certificateAuthorityFile: certificate.certificate))
            let nginx = try await NginxTestServer.start(answering: transport)
            let base = nginx.baseURL.absoluteString

            let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        guard let url = URL(string: "\(base)/multiplexed/\(index)") else {
                            return .failure(TestServerError("bad URL"))
                        }
                        return await transport.get(url).map { $0.0.statusCode }
                    }
                }
                var results: [Result<Int, any Error>] = []
                for await result in group {
                    results.append(result)
                }
                return results
            }
            #expect(results.count == 50)
            for result in results {
                #expect(try result.get() == 200)
            }
            // nginx writes a request's log line when it has answered it; all 50 have been answered.
            let lines = try nginx.loggedRequests().filter { $0.count == 3 && $0[2].hasPrefix("/multiplexed/") }
            #expect(lines.count == 50)
            #expect(Set(lines.map { $0[1] }) == ["HTTP/2.0"])
            #expect(Set(lines.map { $0[0] }).count == 1, "connections: \(Set(lines.map { $0[0] }))")
        }

        @Test(.enabled(if: NginxTestServer.executable != nil, "nginx is not installed and could not be installed"))
        func http1RequestsStayWithinThePerHostConnectionLimit() async throws {
            let certificate = try TestCertificate.shared.get()
            let options = CurlTransport.Options(
                maximumConnectionsPerHost: 2, httpVersion: .http1, certificateAuthorityFile: certificate.certificate)
            let transport = try CurlTransport(options: options)
            let nginx = try await NginxTestServer.start(answering: transport)
            let base = nginx.baseURL.absoluteString
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let url = try #require(URL(string: "\(base)/limited/\(index)"))
                        _ = try await transport.get(url).get()
                    }
                }
                try await group.waitForAll()
            }
            let lines = try nginx.loggedRequests().filter { $0.count == 3 && $0[2].hasPrefix("/limited/") }
            #expect(lines.count == 20)
            #expect(Set(lines.map { $0[1] }) == ["HTTP/1.1"])
            #expect(Set(lines.map { $0[0] }).count <= 2, "connections: \(Set(lines.map { $0[0] }))")
        }
    }
#endif
