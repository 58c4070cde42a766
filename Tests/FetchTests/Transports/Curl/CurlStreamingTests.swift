#if os(Linux)
    import Fetch
    import FetchTesting
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `CurlTransport.stream`: the head, then the body piece by piece as it arrives, then the end.
    @Suite struct CurlStreamingTests {
        let server: TestServer
        let transport: CurlTransport

        init() throws {
            server = try TestServer.running()
            transport = try CurlTransport()
        }

        /// Streams `request` and returns its events once the last one has arrived.
        private func events(of request: URLRequest) async throws -> [CurlTransport.StreamEvent] {
            let events = Captured<CurlTransport.StreamEvent>()
            let ended = Captured<Bool>()
            transport.stream(request, timeout: 20) { event in
                events.capture(event)
                switch event {
                case .finished, .failed:
                    ended.capture(true)
                case .response, .data:
                    break
                }
            }
            _ = try await ended.first()
            return events.values
        }

        @Test func deliversTheHeadThenEveryPieceThenTheEnd() async throws {
            let events = try await events(of: URLRequest(url: server.url("/curl/drip/65536?count=30")))
            guard case .response(let response) = events.first else {
                Issue.record("the first event is not the response: \(String(describing: events.first))")
                return
            }
            #expect(response.statusCode == 200)
            guard case .finished = events.last else {
                Issue.record("the last event is not .finished: \(String(describing: events.last))")
                return
            }
            var body = Data()
            for case .data(let piece) in events {
                body.append(piece)
            }
            #expect(events.count > 3)
            #expect(body.count == 65536 * 30)
            for index in 0..<30 {
                let first: UInt8 = body[index * 65536]
                let last: UInt8 = body[index * 65536 + 65535]
                #expect(first == UInt8(index) && last == UInt8(index), "piece \(index)")
            }
        }

        @Test func aPieceArrivesBeforeTheRestIsSent() async throws {
            let name = UUID().uuidString
            let release = server.url("/curl/release/\(name)")
            let transport = transport
            let started = Date()
            let events = Captured<CurlTransport.StreamEvent>()
            let ended = Captured<TimeInterval>()
            transport.stream(URLRequest(url: server.url("/curl/first-piece-then-wait/\(name)")), timeout: 20) { event in
                events.capture(event)
                switch event {
                case .data(let piece) where piece == Data("first".utf8):
                    // The server sends the rest only after this request: delivered at the end, it would wait 10 s.
                    transport.send(URLRequest(url: release), timeout: 20) { _ in }
                case .finished, .failed:
                    ended.capture(Date().timeIntervalSince(started))
                default:
                    break
                }
            }
            let elapsed = try await ended.first()
            var body = Data()
            for case .data(let piece) in events.values {
                body.append(piece)
            }
            #expect(String(decoding: body, as: UTF8.self) == "firstrest")
            #expect(elapsed < 8)
        }

        @Test func aRefusedConnectionDeliversOnlyTheFailure() async throws {
            struct Port: Decodable { let port: Int }
            let (_, data) = try await transport.get(server.url("/closed-port")).get()
            let port = try JSONDecoder().decode(Port.self, from: data).port
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/stream"))
            let events = try await events(of: URLRequest(url: url))
            #expect(events.count == 1)
            guard case .failed(let failure) = events.first, case .transport(let error, _) = failure.fetchKind else {
                Issue.record("expected only .failed(.transport), got \(events)")
                return
            }
            #expect(error.code == .cannotConnectToHost)
        }
    }
#endif
