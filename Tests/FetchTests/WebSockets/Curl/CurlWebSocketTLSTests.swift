#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `wss` over libcurl's TLS: the certificate is verified and pins are honoured, as for requests.
    @Suite(.timeLimit(.minutes(1))) struct CurlWebSocketTLSTests {
        let server: WebSocketTestServer
        let certificate: TestCertificate

        init() throws {
            certificate = try TestCertificate.shared.get()
            server = try WebSocketTestServer.tls.get()
        }

        @Test func echoesOverTLSWithTheCertificateAuthorityFile() async throws {
            let transport = try CurlTransport(options: .init(certificateAuthorityFile: certificate.certificate))
            let channel = try await transport.channel(try server.url("/echo"))
            let bytes = Data(repeating: 7, count: 200_000)  // more than one TLS record
            try await channel.send(.binary(bytes))
            #expect(try await channel.receive() == .message(.binary(bytes)))
            channel.close(code: .normalClosure, reason: "")
            #expect(try await channel.receive() == .closed(code: 1000, reason: ""))
        }

        @Test(arguments: WebSocketTransportKind.allCases)
        func aCertificateThatDoesNotVerifyFails(kind: WebSocketTransportKind) async throws {
            let error = await #expect(throws: FetchError.self) {
                try await kind.make().openWebSocket(try server.url("/echo"))
            }
            guard case .transport(let urlError, let request) = error?.fetchKind else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(urlError.code == .serverCertificateUntrusted)
            #expect(request?.url.scheme == "wss")
        }

        @Test func aCertificateForAnotherHostIsRefused() async throws {
            let transport = try CurlTransport(options: .init(certificateAuthorityFile: certificate.certificate))
            let error = await #expect(throws: FetchError.self) {
                try await transport.openWebSocket(try server.url("/echo", host: "localhost"))
            }
            guard case .transport(let urlError, _) = error?.fetchKind else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(urlError.code == .serverCertificateUntrusted)
        }

        @Test func aMatchingPinConnectsAndAWrongOneFails() async throws {
            let pinned = try CurlTransport(
                options: .init(certificateAuthorityFile: certificate.certificate, pinnedPublicKeys: [certificate.pin]))
            let channel = try await pinned.channel(try server.url("/echo"))
            channel.cancel()
            let wrong = try CurlTransport(
                options: .init(
                    certificateAuthorityFile: certificate.certificate,
                    pinnedPublicKeys: ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]))
            let error = await #expect(throws: FetchError.self) {
                try await wrong.openWebSocket(try server.url("/echo"))
            }
            guard case .transport(let urlError, _) = error?.fetchKind else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(urlError.code == .serverCertificateUntrusted)
        }
    }
#endif
