extension WebSocket {
    /// A close code that RFC 6455 lets an endpoint send in a close frame (§7.4): what ``WebSocket/close(code:reason:)``
    /// sends and what ``WebSocket/closeCode`` reports.
    ///
    /// The codes are 1000 to 1003 and 1007 to 1014 (those the RFC and IANA's registry assign), and 3000 to 4999 for
    /// libraries, frameworks and applications (`WebSocket.CloseCode(rawValue: 4000)`). Any other code is refused
    /// where the value is made: `init(rawValue:)` returns `nil` for 1004 to 1006 and 1015, which name what happened
    /// without a close frame and may never be sent, for the unassigned 1016 to 2999, and for codes below 1000 or
    /// above 4999. So a close can never go out with a code a server must reject, and none is ever changed on the way.
    public struct CloseCode: RawRepresentable, Hashable, Sendable {
        /// The code as it goes on the wire.
        public let rawValue: UInt16

        /// The close code `rawValue`, or `nil` when RFC 6455 does not let an endpoint send it.
        ///
        /// - Parameter rawValue: 1000 to 1003, 1007 to 1014, or 3000 to 4999.
        public init?(rawValue: UInt16) {
            guard Self.isSendable(rawValue) else {
                return nil
            }
            self.rawValue = rawValue
        }

        /// A code Fetch names, which is sendable.
        private init(assigned: UInt16) {
            self.rawValue = assigned
        }

        /// The close code of a frame, or `nil` when there is none or it is not one an endpoint may send.
        init?(_ code: Int?) {
            guard let code, let value = UInt16(exactly: code) else {
                return nil
            }
            self.init(rawValue: value)
        }

        /// 1000: the purpose of the connection has been fulfilled. The default of a close.
        public static let normalClosure = CloseCode(assigned: 1000)

        /// 1001: the endpoint is going away, as a client does when it leaves or a server when it restarts.
        public static let goingAway = CloseCode(assigned: 1001)

        /// 1002: the other endpoint broke the protocol.
        public static let protocolError = CloseCode(assigned: 1002)

        /// 1008: a message broke the endpoint's policy (the generic code when no other fits).
        public static let policyViolation = CloseCode(assigned: 1008)

        /// 1011: the server met a condition that kept it from fulfilling the request.
        public static let internalServerError = CloseCode(assigned: 1011)

        /// Whether RFC 6455 lets an endpoint send `code` (§7.4).
        static func isSendable(_ code: UInt16) -> Bool {
            (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
        }

        /// The code as the frame codec and ``FetchError`` carry it.
        var value: Int { Int(rawValue) }
    }
}
