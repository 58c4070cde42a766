#if os(Linux)
    /// Why a ``CurlTransport`` could not be created: libcurl could not be loaded, is too old, or an option is invalid.
    public struct CurlTransportError: Error, Sendable, CustomStringConvertible {
        /// What went wrong, in one sentence that names what is missing.
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }
#endif
