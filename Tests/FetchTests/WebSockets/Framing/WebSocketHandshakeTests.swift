import Fetch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct WebSocketHandshakeTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    @Test func acceptIsTheExampleOfRFC6455() {
        #expect(WebSocketHandshake.accept(forKey: Self.key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func makeKeyIsTheBase64OfSixteenFreshBytes() throws {
        let key = WebSocketHandshake.makeKey()
        let bytes = try #require(Data(base64Encoded: key))
        #expect(bytes.count == 16)
        #expect(key.count == 24)
        #expect(WebSocketHandshake.makeKey() != key)
    }

    static func head(_ url: String, _ headers: [String: String] = [:]) throws -> String {
        var request = URLRequest(url: try #require(URL(string: url)))
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return String(decoding: try WebSocketHandshake.requestHead(for: request, key: key), as: UTF8.self)
    }

    @Test func requestHeadHasTheTargetHostTheRequestsFieldsAndTheUpgrade() throws {
        let head = try Self.head(
            "ws://example.com/chat/room%201?since=5&x=%2F",
            ["Authorization": "Bearer t0k", "Origin": "http://example.com"])
        #expect(
            head == "GET /chat/room%201?since=5&x=%2F HTTP/1.1\r\n" + "Host: example.com\r\n"
                + "Authorization: Bearer t0k\r\n" + "Origin: http://example.com\r\n" + "Upgrade: websocket\r\n"
                + "Connection: Upgrade\r\n" + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n")
    }

    @Test func requestHeadSendsTheDeclaredFieldsApartAndInOrderWithOneCookieLine() throws {
        let request = AdaptedRequestWireSample.request("ws://example.com/chat")
        var urlRequest = try request.makeURLRequest()
        urlRequest.setValue("13", forHTTPHeaderField: "Sec-WebSocket-Version")
        let head = String(
            decoding: try WebSocketHandshake.requestHead(for: urlRequest, declaring: request.headers, key: Self.key),
            as: UTF8.self)
        let fields = head.components(separatedBy: "\r\n").filter { $0.hasPrefix("X-") || $0.hasPrefix("Cookie") }
        #expect(fields == ["X-B: 2", "Cookie: a=1; b=2", "X-A: 1", "X-A: 3"])
    }

    @Test(arguments: [
        ("ws://example.com", "GET / HTTP/1.1", "Host: example.com"),
        ("ws://example.com:80/a", "GET /a HTTP/1.1", "Host: example.com"),
        ("http://example.com:80/a", "GET /a HTTP/1.1", "Host: example.com"),
        ("ws://127.0.0.1:8080/", "GET / HTTP/1.1", "Host: 127.0.0.1:8080"),
        ("wss://example.com:443/s?", "GET /s? HTTP/1.1", "Host: example.com"),
        ("https://example.com:443/s", "GET /s HTTP/1.1", "Host: example.com"),
        ("wss://example.com:80/s", "GET /s HTTP/1.1", "Host: example.com:80"),
        ("https://example.com:8443/s", "GET /s HTTP/1.1", "Host: example.com:8443"),
        ("ws://[::1]:9000/v6", "GET /v6 HTTP/1.1", "Host: [::1]:9000"),
        ("WS://Example.com/fragment#dropped", "GET /fragment HTTP/1.1", "Host: Example.com"),
    ])
    func requestHeadNamesThePortOnlyWhenItIsNotTheSchemesDefault(url: String, requestLine: String, host: String) throws
    {
        let lines = try Self.head(url).components(separatedBy: "\r\n")
        #expect(lines.prefix(2) == [requestLine, host])
    }

    @Test func requestHeadKeepsTheRequestsOwnUpgradeFieldsAndAlwaysSendsTheKey() throws {
        let head = try Self.head(
            "ws://example.com/",
            [
                "Host": "virtual.example", "Upgrade": "WebSocket", "Connection": "keep-alive, Upgrade",
                "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "c3RhbGUgc3RhbGUgc3RhbGU=",
                "Sec-WebSocket-Protocol": "chat",
            ])
        let lines = head.components(separatedBy: "\r\n")
        #expect(lines[1] == "Host: virtual.example")
        #expect(lines.filter { $0.lowercased().hasPrefix("host:") }.count == 1)
        #expect(lines.filter { $0.lowercased().hasPrefix("upgrade:") } == ["Upgrade: WebSocket"])
        #expect(lines.filter { $0.lowercased().hasPrefix("connection:") } == ["Connection: keep-alive, Upgrade"])
        #expect(lines.filter { $0.lowercased().hasPrefix("sec-websocket-version:") }.count == 1)
        #expect(lines.filter { $0.lowercased().hasPrefix("sec-websocket-key:") } == ["Sec-WebSocket-Key: \(Self.key)"])
        // Foundation on Linux recases the names it stores (Sec-Websocket-Protocol); names are case-insensitive.
        #expect(lines.contains { $0.lowercased() == "sec-websocket-protocol: chat" })
        #expect(head.hasSuffix("\r\n\r\n"))
    }

    @Test func requestHeadRefusesAFieldThatCannotBeSent() throws {
        var request = URLRequest(url: try #require(URL(string: "ws://example.com/chat")))
        request.setValue("v", forHTTPHeaderField: "Bad Name")
        #expect {
            try WebSocketHandshake.requestHead(for: request, key: Self.key)
        } throws: { error in
            guard case .invalidRequest(let reason) = error.fetchKind else {
                return false
            }
            return reason.hasPrefix("GET ws://example.com/chat: header name \"Bad Name\"")
        }
    }

    @Test(arguments: ["ws:chat", "ws:///chat", "ftp://example.com/chat"])
    func requestHeadRefusesAURLWithoutAHostOrOfAnotherScheme(url: String) throws {
        let request = URLRequest(url: try #require(URL(string: url)))
        #expect {
            try WebSocketHandshake.requestHead(for: request, key: Self.key)
        } throws: { error in
            guard case .invalidRequest(let reason) = error.fetchKind else {
                return false
            }
            return reason.hasPrefix("GET \(url): a WebSocket URL")
        }
    }

    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    @Test func acceptsAnUpgradeWhateverTheCase() {
        let fields: [HeaderFields] = [
            ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": Self.accept],
            ["upgrade": "WebSocket", "connection": "keep-alive, UPGRADE", "sec-websocket-accept": " \(Self.accept) "],
            HeaderFields([
                ("Upgrade", "websocket"), ("Connection", "keep-alive"), ("Connection", "upgrade"),
                ("Sec-WebSocket-Accept", Self.accept), ("Sec-WebSocket-Extensions", ""),
            ]),
        ]
        for headers in fields {
            #expect(WebSocketHandshake.problem(withUpgrade: headers, key: Self.key) == nil, "\(headers)")
        }
    }

    @Test(
        arguments: [
            (["Connection": "Upgrade", "Sec-WebSocket-Accept": accept], "no Upgrade field"),
            (["Upgrade": "h2c", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept], "upgrades to \"h2c\""),
            (["Upgrade": "websocket", "Sec-WebSocket-Accept": accept], "no Connection field"),
            (
                ["Upgrade": "websocket", "Connection": "keep-alive, upgraded", "Sec-WebSocket-Accept": accept],
                "Connection field is \"keep-alive, upgraded\", without the upgrade token"
            ),
            (
                ["Upgrade": "websocket", "Connection": "Upgrade"],
                "no Sec-WebSocket-Accept field (expected s3pPLMBiTxaQ9kYGzzhZRbK+xOo=)"
            ),
            (
                [
                    "Upgrade": "websocket", "Connection": "Upgrade",
                    "Sec-WebSocket-Accept": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo",
                ],
                "Sec-WebSocket-Accept is \"s3pPLMBiTxaQ9kYGzzhZRbK+xOo\", expected s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
            ),
            (
                [
                    "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept,
                    "Sec-WebSocket-Extensions": "permessage-deflate",
                ],
                "accepts the extension \"permessage-deflate\", which was not asked for"
            ),
        ] as [(HeaderFields, String)])
    func refusesAnUpgradeThatBreaksTheHandshake(headers: HeaderFields, problem: String) throws {
        let reason = try #require(WebSocketHandshake.problem(withUpgrade: headers, key: Self.key))
        #expect(reason.contains(problem), "\(reason)")
        #expect(reason.hasPrefix("the 101 response"))
    }

    @Test(
        arguments: [
            (nil, nil), (nil, "chat"), ("", "chat"), ("chat", "chat"), ("v2.chat", "chat, v2.chat"),
            (" chat ", "superchat,chat"),
        ] as [(String?, String?)])
    func acceptsNoSubprotocolOrOneThatWasOffered(answer: String?, offered: String?) {
        let headers = HeaderFields(
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", Self.accept)]
                + (answer.map { [("Sec-WebSocket-Protocol", $0)] } ?? []))
        #expect(WebSocketHandshake.problem(withUpgrade: headers, key: Self.key, offeredProtocols: offered) == nil)
    }

    @Test(
        arguments: [
            (["chat"], nil, #"chose the subprotocol "chat", which was not offered (the request offered none)"#),
            (
                ["v2"], "chat, v1",
                #"chose the subprotocol "v2", which was not offered (the request offered "chat, v1")"#
            ),
            (["Chat"], "chat", #"chose the subprotocol "Chat", which was not offered"#),
            (["chat, v1"], "chat, v1", #"names more than one subprotocol, "chat, v1""#),
            (["chat", "v1"], "chat, v1", #"names more than one subprotocol, "chat, v1""#),
        ] as [([String], String?, String)])
    func refusesASubprotocolThatWasNotOfferedNamingBoth(answers: [String], offered: String?, problem: String) throws {
        let headers = HeaderFields(
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", Self.accept)]
                + answers.map { ("Sec-WebSocket-Protocol", $0) })
        let reason = try #require(
            WebSocketHandshake.problem(withUpgrade: headers, key: Self.key, offeredProtocols: offered))
        #expect(reason.contains(problem), "\(reason)")
        #expect(reason.hasPrefix("the 101 response"))
    }
}

/// A handshake request with repeated fields, as an adapted one carries them.
enum AdaptedRequestWireSample {
    static func request(_ url: String) -> TestRequest {
        TestRequest(
            url,
            headers: HeaderFields([("X-B", "2"), ("Cookie", "a=1"), ("X-A", "1"), ("Cookie", "b=2"), ("X-A", "3")]))
    }
}
