#if os(Linux)
    @testable import Fetch
    import Foundation
    import Testing

    /// The read-ahead of a libcurl WebSocket: its bound, its order, and when taking a message tells the loop to read
    /// again.
    @Suite struct CurlWebSocketReadAheadTests {
        @Test func holdsAtMostSixteenMessagesInOrder() {
            let readAhead = CurlWebSocketReadAhead()
            var appended = 0
            while readAhead.hasRoom {
                readAhead.append(.text("\(appended)"))
                appended += 1
            }
            #expect(appended == CurlWebSocketReadAhead.messageLimit)
            let first = readAhead.take()
            #expect(first?.message == .text("0"))
            #expect(first?.freedRoom == true, "taken from a full read-ahead: the loop must read again")
            #expect(readAhead.take()?.freedRoom == false)
            var rest: [WebSocketMessage] = []
            while let (message, _) = readAhead.take() {
                rest.append(message)
            }
            #expect(rest == (2..<appended).map { .text("\($0)") })
            #expect(readAhead.isEmpty && readAhead.hasRoom)
        }

        @Test func holdsOneMessageOfAnySizeButStopsAtTheByteLimitAfterIt() {
            let readAhead = CurlWebSocketReadAhead()
            readAhead.append(.binary(Data(count: 4 << 20)))
            #expect(!readAhead.hasRoom)
            #expect(readAhead.take()?.freedRoom == true)
            readAhead.append(.binary(Data(count: CurlWebSocketReadAhead.byteLimit - 1)))
            #expect(readAhead.hasRoom)
            readAhead.append(.text("x"))
            #expect(!readAhead.hasRoom)
            readAhead.removeAll()
            #expect(readAhead.isEmpty && readAhead.hasRoom)
        }
    }
#endif
