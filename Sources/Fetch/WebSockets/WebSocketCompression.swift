extension WebSocket {
    /// Whether a WebSocket compresses its messages: ``deflate`` (the default) offers permessage-deflate (RFC 7692)
    /// in the opening handshake, ``disabled`` offers nothing.
    ///
    /// ```swift
    /// var configuration = WebSocket.Configuration()
    /// configuration.compression = .disabled  // secrets beside text an attacker chooses: no compression
    /// ```
    ///
    /// Compression needs the server's agreement, and zlib, which Fetch loads at run time on Linux: without it,
    /// nothing is offered. On Apple platforms, `URLSessionWebSocketTask` decides for itself (see Platform
    /// differences). A struct with static members, so that a release can add settings (a window size, no context
    /// takeover) without breaking an app's code.
    public struct Compression: Sendable, Hashable {
        /// Whether permessage-deflate is offered.
        let offersDeflate: Bool

        /// permessage-deflate, when the server agrees: the default.
        public static let deflate = Compression(offersDeflate: true)

        /// No compression: the opening handshake offers no extension.
        public static let disabled = Compression(offersDeflate: false)
    }
}
