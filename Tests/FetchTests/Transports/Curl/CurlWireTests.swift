#if os(Linux)
    import Fetch
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// A libcurl ``Session`` against servers whose response heads are hostile (`Tests/FetchTests/Support/Server/routes_wire.py`, raw
    /// bytes on the socket): each ends in a clear ``FetchError`` that names the request, or in the right status.
    @Suite struct CurlWireTests {
        let server: TestServer
        let session: Session

        init() throws {
            server = try TestServer.running()
            session = try Session(transport: CurlTransport(), callbackQueue: OperationQueue())
        }

        /// The error a GET of `path` ends with, when it is the `.badServerResponse` a broken head gives.
        func badServerResponse(_ path: String) async throws -> FetchError {
            let url = server.url(path)
            let error = await #expect(throws: FetchError.self) {
                let _: Response = try await session.perform(TestRequest(url))
            }
            let failure = try #require(error)
            guard case .transport(let urlError, _) = failure.fetchKind else {
                Issue.record("expected .transport(.badServerResponse), got \(failure)")
                return failure
            }
            #expect(urlError.code == .badServerResponse, "\(failure)")
            #expect(failure.description.contains("GET \(url.absoluteString)"), "\(failure)")
            return failure
        }

        @Test func aStatusOutside100To599IsRefusedWithTheLineQuoted() async throws {
            let error = try await badServerResponse("/wire/raw/status-out-of-range")
            #expect(error.description.contains(#"the status line "HTTP/1.1 999 Beyond""#), "\(error)")
        }

        @Test(arguments: ["status-overflow", "status-four-digits", "status-letters", "garbage"])
        func aStatusLineThatIsNoneIsABadServerResponse(route: String) async throws {
            _ = try await badServerResponse("/wire/raw/\(route)")
        }

        @Test func aStatusLineAmongTheHeadersNeverTurnsA500IntoA200() async throws {
            let error = try await badServerResponse("/wire/raw/status-line-in-headers")
            #expect(error.response == nil)
        }

        @Test func theFinalHeadAfterEarlyHintsIsTheResponse() async throws {
            let response: Response = try await session.perform(TestRequest(server.url("/wire/raw/early-hints")))
            #expect(response.status == 201)
            #expect(response.headers["X-Final"] == "yes")
            #expect(response.headers["Link"] == nil)
            #expect(response.data == Data("ok".utf8))
        }

        @Test func aFoldedFieldIsUnfoldedAndARepeatedOneJoined() async throws {
            let response: Response = try await session.perform(TestRequest(server.url("/wire/raw/folded")))
            #expect(response.status == 200)
            #expect(response.headers["X-Folded"] == "first second")
            #expect(response.headers["X-Twice"] == "a, b")
        }

        @Test func aNegativeContentLengthIsABadServerResponse() async throws {
            _ = try await badServerResponse("/wire/raw/negative-length")
        }

        /// RFC 9112 §6.3: a response with an invalid `Content-Length` is an unrecoverable error, discarded.
        @Test(arguments: ["overflowing-length", "conflicting-lengths"])
        func aContentLengthThatIsNotOneLengthIsABadServerResponse(route: String) async throws {
            let error = try await badServerResponse("/wire/raw/\(route)")
            #expect(error.description.contains("is not one length in bytes"), "\(error)")
        }

        @Test func aRepeatedEqualContentLengthIsOneLength() async throws {
            let response: Response = try await session.perform(TestRequest(server.url("/wire/raw/repeated-length")))
            #expect(response.status == 200)
            #expect(response.data == Data("ok".utf8))
        }

        @Test func aConnectionClosedAfterTheStatusLineIsABadServerResponse() async throws {
            let error = try await badServerResponse("/wire/raw/status-line-only")
            #expect(error.description.contains("before its response head ended"), "\(error)")
        }

        @Test func aTenMegabyteHeaderLineEndsAtLibcurlsLimit() async throws {
            let error = try await badServerResponse("/wire/huge-header/10000000")
            #expect(error.description.contains("response head is larger than libcurl accepts"), "\(error)")
        }

        @Test func aHundredThousandHeaderFieldsEndAtFetchsFieldLimit() async throws {
            let error = try await badServerResponse("/wire/many-headers/100000")
            #expect(error.description.contains("more than 1000 header fields, Fetch's limit"), "\(error)")
        }

        @Test func anEndlessHeadEndsAtFetchsByteLimit() async throws {
            let error = try await badServerResponse("/wire/endless-head")
            #expect(error.description.contains("larger than 262144 bytes, Fetch's limit"), "\(error)")
        }

        @Test func aStreamedExchangeWithABadStatusLineFailsNamingTheRequest() async throws {
            let url = server.url("/wire/raw/status-out-of-range")
            let error = await #expect(throws: FetchError.self) {
                _ = try await session.stream(TestRequest(url))
            }
            #expect(error?.description.contains(#""HTTP/1.1 999 Beyond""#) == true, "\(String(describing: error))")
            #expect(error?.description.contains(url.absoluteString) == true)
        }

        /// Over plain http, where every connection is HTTP/1.1, requests do not wait for a connection that might
        /// multiplex (`CURLOPT_PIPEWAIT`): against a server that closes each connection after one answer they run at
        /// once. The server holds each answer until all four have arrived, or 3 s.
        @Test func plainHTTPRequestsRunAtOnceAgainstAServerThatClosesEachConnection() async throws {
            struct Barrier: Decodable, Parsable {
                let arrived: Int
                let count: Int
            }
            let url = server.url("/wire/barrier/\(UUID().uuidString)?count=4&wait=3")
            let answers = try await withThrowingTaskGroup(of: Barrier.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await session.perform(TestRequest(url)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 4)
            #expect(answers.allSatisfy { $0.arrived == 4 }, "\(answers.map(\.arrived))")
        }
    }
#endif
