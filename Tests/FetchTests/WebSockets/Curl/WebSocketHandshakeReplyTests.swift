#if os(Linux)
    @testable import Fetch
    import Foundation
    import Testing

    /// Reading the answer to an opening handshake from raw bytes, with its bounds.
    @Suite struct WebSocketHandshakeReplyTests {
        private func reply(_ pieces: [String]) throws -> WebSocketHandshakeReply {
            var reply = WebSocketHandshakeReply()
            for piece in pieces {
                try reply.append(Data(piece.utf8))
            }
            reply.takeBodyFromPending()
            return reply
        }

        @Test func a101HeadKeepsTheBytesAfterItForTheFrames() throws {
            let reply = try reply([
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n", "Connection: Upgrade\r\n\r\nAB",
            ])
            #expect(reply.status == 101)
            #expect(reply.headers["upgrade"] == "websocket")
            #expect(reply.bytesAfterHead == Data("AB".utf8))
            #expect(reply.isBodyComplete)
        }

        @Test func anInformationalHeadBeforeTheAnswerIsSkipped() throws {
            let reply = try reply(["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 Switching Protocols\r\nA: b\r\n\r\n"])
            #expect(reply.status == 101)
            #expect(reply.headers["A"] == "b")
        }

        @Test func aHeadOver64KiBIsRefused() throws {
            let field = "X-Padding: " + String(repeating: "a", count: 70_000)
            #expect(throws: ResponseHeadParser.Failure.headTooLarge(limit: 64 * 1024)) {
                _ = try reply(["HTTP/1.1 101 Switching Protocols\r\n", field])
            }
            #expect(throws: ResponseHeadParser.Failure.headTooLarge(limit: 64 * 1024)) {
                _ = try reply(["HTTP/1.1 101 Switching Protocols\r\n", field + "\r\n\r\n"])
            }
        }

        @Test func anInvalidStatusLineIsRefused() {
            #expect(throws: ResponseHeadParser.Failure.self) { _ = try reply(["SMTP ready\r\n\r\n"]) }
        }

        @Test func aRefusalsBodyIsReadByItsContentLength() throws {
            var reply = try reply(["HTTP/1.1 401 Unauthorized\r\nContent-Length: 5\r\n\r\nab"])
            #expect(!reply.isBodyComplete)
            try reply.append(Data("cdeEXTRA".utf8))
            #expect(reply.isBodyComplete)
            #expect(reply.body == Data("abcde".utf8))
        }

        @Test func aRefusalsBodyIsCutAt64KiB() throws {
            var reply = try reply(["HTTP/1.1 403 Forbidden\r\nContent-Length: 1000000\r\n\r\n"])
            try reply.append(Data(repeating: 0x61, count: 100_000))
            #expect(reply.isBodyComplete)
            #expect(reply.body.count == 64 * 1024)
        }

        @Test func aChunkedBodyIsDecodedAcrossReads() throws {
            var reply = try reply(["HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab"])
            #expect(!reply.isBodyComplete)
            try reply.append(Data("c\r\n2;ext=1\r\nde\r\n0\r\n\r\n".utf8))
            #expect(reply.isBodyComplete)
            #expect(reply.body == Data("abcde".utf8))
        }

        @Test func aChunkSizeTooLongOrNotHexadecimalEndsTheBody() {
            #expect(
                WebSocketHandshakeReply.dechunk(Data("2\r\nab\r\nzz\r\n".utf8), limit: 100) == (Data("ab".utf8), true))
            let huge = Data((String(repeating: "f", count: 40) + "\r\nab").utf8)
            #expect(WebSocketHandshakeReply.dechunk(huge, limit: 100) == (Data(), true))
        }

        @Test func aBodyWithoutLengthIsReadUntilTheClose() throws {
            var reply = try reply(["HTTP/1.1 500 Oops\r\n\r\npart"])
            #expect(!reply.isBodyComplete)
            reply.connectionClosed()
            #expect(reply.isBodyComplete)
            #expect(reply.body == Data("part".utf8))
        }
    }
#endif
