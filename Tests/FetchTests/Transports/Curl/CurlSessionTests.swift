#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// What is particular to `Session(transport: CurlTransport())`; everything a session promises is tested on both transports by
    /// the Session suites (`SessionTransport`).
    @Suite struct CurlSessionTests {
        @Test func invalidOptionsThrowACurlTransportErrorNamingThem() {
            let error = #expect(throws: CurlTransportError.self) {
                _ = try Session(transport: CurlTransport(options: CurlTransport.Options(maximumConnectionsPerHost: 0)))
            }
            #expect(error?.description.contains("maximumConnectionsPerHost must be at least 1") == true)
        }

        @Test func theSessionsOptionsReachTheTransport() async throws {
            let certificate = try TestCertificate.shared.get()
            let server = try TLSTestServer.running()
            let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/options"))
            struct Answer: Decodable, Parsable { let tls: Bool }

            let trusting = try Session(
                transport: CurlTransport(
                    options: CurlTransport.Options(certificateAuthorityFile: certificate.certificate)),
                callbackQueue: OperationQueue())
            let answer: Answer = try await trusting.perform(TestRequest(url))
            #expect(answer.tls)

            // The same CA with a pin no key matches: the session's options reach every request.
            let options = CurlTransport.Options(
                certificateAuthorityFile: certificate.certificate,
                pinnedPublicKeys: ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
            let pinned = try Session(transport: CurlTransport(options: options), callbackQueue: OperationQueue())
            let error = await #expect(throws: FetchError.self) {
                let _: Answer = try await pinned.perform(TestRequest(url))
            }
            guard case .transport(let urlError, _) = error.fetchKind else {
                Issue.record("expected .transport, got \(String(describing: error))")
                return
            }
            #expect(urlError.code == .serverCertificateUntrusted)
            #expect(error?.description.contains(url.absoluteString) == true)
        }
    }
#endif
