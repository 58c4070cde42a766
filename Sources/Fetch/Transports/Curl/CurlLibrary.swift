#if os(Linux)
    import CFetchCurl

    /// The libcurl loaded at run time, and what it can do.
    struct CurlLibrary: Sendable {
        /// The library every Linux Foundation installation has, since FoundationNetworking links it.
        static let defaultName = "libcurl.so.4"

        /// `7.88.1`, for example.
        let version: String
        let supportsHTTP2: Bool
        /// The content encodings libcurl can decode, in the order it would offer them.
        let decodableEncodings: [String]

        /// Loads `name` once per process and reports its version and features.
        static func load(_ name: String) throws -> CurlLibrary {
            var message = [CChar](repeating: 0, count: 512)
            let status = message.withUnsafeMutableBufferPointer { buffer in
                cfcurl_load(name, buffer.baseAddress, buffer.count)
            }
            guard status == 0 else {
                let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw CurlTransportError("The libcurl transport is unavailable: \(reason)")
            }
            let info = cfcurl_version()
            let features = info.features
            var encodings: [String] = []
            if features & Int32(CFCURL_VERSION_LIBZ) != 0 {
                encodings += ["gzip", "deflate"]
            }
            if features & Int32(CFCURL_VERSION_BROTLI) != 0 {
                encodings.append("br")
            }
            if features & Int32(CFCURL_VERSION_ZSTD) != 0 {
                encodings.append("zstd")
            }
            return CurlLibrary(
                version: info.version.map { String(cString: $0) } ?? "unknown",
                supportsHTTP2: features & Int32(CFCURL_VERSION_HTTP2) != 0,
                decodableEncodings: encodings
            )
        }
    }
#endif
