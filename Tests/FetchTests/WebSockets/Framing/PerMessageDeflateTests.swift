import Fetch
import Testing

/// The client's reading of a server's `Sec-WebSocket-Extensions` answer to its permessage-deflate offer (RFC 7692
/// §5 and §7.1): what it agrees to, and every answer that fails the handshake.
@Suite struct PerMessageDeflateTests {
    private func agreement(_ answer: String) throws -> PerMessageDeflate {
        guard case .agreed(let agreement) = PerMessageDeflate.negotiate(answer: answer, offered: true) else {
            Issue.record("\(answer.debugDescription) was not agreed to")
            throw Refused()
        }
        return agreement
    }

    private struct Refused: Error {}

    @Test func theOfferAsksForPermessageDeflateAndLetsTheServerPickTheClientWindow() {
        #expect(PerMessageDeflate.offer == "permessage-deflate; client_max_window_bits")
    }

    @Test func aBareAcceptanceKeepsContextBothWaysWithFullWindows() throws {
        let agreed = try agreement("permessage-deflate")
        #expect(agreed == PerMessageDeflate())
        #expect(!agreed.serverNoContextTakeover && !agreed.clientNoContextTakeover)
        #expect(agreed.serverMaxWindowBits == 15 && agreed.clientMaxWindowBits == 15)
        #expect(agreed.clientCompressionWindowBits == 15)
    }

    @Test func everyParameterIsReadWhateverItsCaseSpacingAndQuoting() throws {
        let agreed = try agreement(
            "Permessage-Deflate ;server_no_context_takeover; CLIENT_NO_CONTEXT_TAKEOVER ;"
                + " server_max_window_bits = \"10\";client_max_window_bits=9")
        #expect(agreed.serverNoContextTakeover)
        #expect(agreed.clientNoContextTakeover)
        #expect(agreed.serverMaxWindowBits == 10)
        #expect(agreed.clientMaxWindowBits == 9)
    }

    @Test func aClientWindowOf8IsAgreedButTheClientThenSendsUncompressed() throws {
        let agreed = try agreement("permessage-deflate; client_max_window_bits=8")
        #expect(agreed.clientMaxWindowBits == 8)
        #expect(agreed.clientCompressionWindowBits == nil)
    }

    @Test func noAnswerOrAnEmptyOneMeansNoCompression() {
        #expect(PerMessageDeflate.negotiate(answer: nil, offered: true) == .none)
        #expect(PerMessageDeflate.negotiate(answer: " ", offered: true) == .none)
        #expect(PerMessageDeflate.negotiate(answer: nil, offered: false) == .none)
    }

    @Test(arguments: [
        ("permessage-deflate", false, "not asked for"),
        ("x-webkit-deflate-frame", true, "not offered"),
        ("permessage-deflate, permessage-deflate", true, "2 extensions"),
        ("permessage-deflate; server_no_context_takeover; server_no_context_takeover", true, "repeats"),
        ("permessage-deflate; client_max_window_bits=10; Client_Max_Window_Bits=11", true, "repeats"),
        ("permessage-deflate; server_no_context_takeover=1", true, "a value"),
        ("permessage-deflate; client_no_context_takeover=\"\"", true, "a value"),
        ("permessage-deflate; server_max_window_bits", true, "no value"),
        ("permessage-deflate; client_max_window_bits", true, "no value"),
        ("permessage-deflate; server_max_window_bits=7", true, "\"7\""),
        ("permessage-deflate; server_max_window_bits=16", true, "\"16\""),
        ("permessage-deflate; client_max_window_bits=09", true, "\"09\""),
        ("permessage-deflate; client_max_window_bits=+9", true, "\"+9\""),
        ("permessage-deflate; client_max_window_bits=\"1 0\"", true, "\"1 0\""),
        ("permessage-deflate; mystery", true, "unknown parameter mystery"),
        ("permessage-deflate;", true, "not a valid extension list"),
        ("permessage-deflate; client_max_window_bits=\"10", true, "not a valid extension list"),
        ("permessage-deflate client_no_context_takeover", true, "not a valid extension list"),
        ("permessage-deflate; a=b=c", true, "not a valid extension list"),
    ])
    func aBadAnswerFailsTheHandshakeSayingWhatCameBack(answer: String, offered: Bool, naming: String) {
        guard case .failed(let reason) = PerMessageDeflate.negotiate(answer: answer, offered: offered) else {
            Issue.record("\(answer.debugDescription) did not fail")
            return
        }
        #expect(reason.contains(naming), "\(reason)")
        #expect(reason.contains("101 response"), "\(reason)")
    }
}
