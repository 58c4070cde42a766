#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `CurlTransport` over TLS, against a loopback HTTPS server whose self-signed certificate is made for this run.
    @Suite struct CurlTLSTests {
        let server: TLSTestServer
        let certificate: TestCertificate

        init() throws {
            certificate = try TestCertificate.shared.get()
            server = try TLSTestServer.running()
        }

        private func url(_ path: String, host: String = "127.0.0.1") throws -> URL {
            try #require(URL(string: "https://\(host):\(server.port)\(path)"))
        }

        @Test func verificationSucceedsWithTheCertificateAuthorityFile() async throws {
            let transport = try CurlTransport(options: .init(certificateAuthorityFile: certificate.certificate))
            let (response, data) = try await transport.get(try url("/verified")).get()
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self).contains(#""tls": true"#))
        }

        @Test func verificationFailsWithAClearErrorWithoutIt() async throws {
            let transport = try CurlTransport()
            let target = try url("/untrusted")
            let error = try transportError(await transport.get(target))
            #expect(error.code == .serverCertificateUntrusted)
            #expect(error.failingURL == target)
            let text = FetchError.transport(error).description
            #expect(text.contains("certificate"), "\(text)")
            #expect(text.contains(target.absoluteString))
        }

        /// The certificate names 127.0.0.1 only; `localhost` reaches the same server under a name it does not carry (a
        /// host every platform's loopback answers, unlike 127.0.0.2 on macOS).
        @Test func aCertificateForAnotherHostIsRefused() async throws {
            let transport = try CurlTransport(options: .init(certificateAuthorityFile: certificate.certificate))
            let error = try transportError(await transport.get(try url("/other-host", host: "localhost")))
            #expect(error.code == .serverCertificateUntrusted)
            #expect(FetchError.transport(error).description.contains("localhost"))
        }

        @Test func aMatchingPinConnects() async throws {
            let options = CurlTransport.Options(
                certificateAuthorityFile: certificate.certificate, pinnedPublicKeys: [certificate.pin])
            let transport = try CurlTransport(options: options)
            let (response, _) = try await transport.get(try url("/pinned")).get()
            #expect(response.statusCode == 200)
        }

        @Test func aWrongPinFailsWithAClearTLSError() async throws {
            let options = CurlTransport.Options(
                certificateAuthorityFile: certificate.certificate,
                pinnedPublicKeys: ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
            )
            let transport = try CurlTransport(options: options)
            let error = try transportError(await transport.get(try url("/wrong-pin")))
            #expect(error.code == .serverCertificateUntrusted)
            let text = FetchError.transport(error).description
            #expect(text.contains("pinned public key"), "\(text)")
        }

        @Test func aMatchingPinDoesNotReplaceVerification() async throws {
            let transport = try CurlTransport(options: .init(pinnedPublicKeys: [certificate.pin]))
            let error = try transportError(await transport.get(try url("/pinned-unverified")))
            #expect(error.code == .serverCertificateUntrusted)
        }
    }
#endif
