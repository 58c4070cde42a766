#if os(Linux)
    import CFetchCurl
    import Foundation

    /// What libcurl measured of one transfer (`curl_easy_getinfo`), as ``AttemptMetrics``.
    ///
    /// libcurl gives each phase as the time from the transfer's start to its end, in microseconds: the lookup ends,
    /// then the TCP connect, then the TLS handshake (`APPCONNECT`, 0 without TLS), then the first byte arrives
    /// (`STARTTRANSFER`) and the last (`TOTAL`). Each phase's duration is the difference with the one before. A
    /// transfer that opened no connection (`NUM_CONNECTS` 0: a kept-alive or multiplexed one) has no lookup,
    /// connect or TLS phase. Every number is read as untrusted: a negative one, or a phase that would end before
    /// the one before it, is `nil`.
    enum CurlMetrics {
        /// The metrics of the transfer on `easy`, which started at `start`; `bodyBytes` is the decoded body when it
        /// is whole, `nil` for a head whose body is still to come (then there is no last byte either).
        /// `elapsed` is the time since the start on Fetch's own clock, the first byte's time when libcurl has not
        /// set its own yet (a head delivered from the header callback).
        static func read(_ easy: CurlEasy, start: Date, elapsed: TimeInterval, bodyBytes: Int?) -> AttemptMetrics {
            var metrics = AttemptMetrics(start: start)
            let firstByte = easy.microseconds(Int(CFCURLINFO_STARTTRANSFER_TIME_T))
            let connects = easy.info(Int(CFCURLINFO_NUM_CONNECTS))
            metrics.isReusedConnection = connects.flatMap { $0 >= 0 ? $0 == 0 : nil }
            // The connection's phases only for a transfer that opened it: a reused one has none to read.
            if let connects, connects > 0 {
                let lookup = easy.microseconds(Int(CFCURLINFO_NAMELOOKUP_TIME_T))
                let connected = easy.microseconds(Int(CFCURLINFO_CONNECT_TIME_T))
                let secured = easy.microseconds(Int(CFCURLINFO_APPCONNECT_TIME_T))
                metrics.domainLookup = lookup.flatMap(AttemptMetrics.seconds(microseconds:))
                metrics.connect = phase(from: lookup, to: connected)
                if let secured, secured > 0 {
                    metrics.secureConnection = phase(from: connected, to: secured)
                }
            }
            if let firstByte, firstByte > 0 {
                metrics.timeToFirstByte = AttemptMetrics.seconds(microseconds: firstByte)
            } else {
                metrics.timeToFirstByte = elapsed
            }
            if bodyBytes != nil {
                metrics.duration = easy.microseconds(Int(CFCURLINFO_TOTAL_TIME_T)).flatMap(
                    AttemptMetrics.seconds(microseconds:))
                metrics.requestBodyBytes = easy.count(offsetInfo: Int(CFCURLINFO_SIZE_UPLOAD_T))
                metrics.responseBodyBytes = easy.count(offsetInfo: Int(CFCURLINFO_SIZE_DOWNLOAD_T))
                metrics.responseBodyDecodedBytes = bodyBytes
            }
            metrics.requestHeaderBytes = easy.info(Int(CFCURLINFO_REQUEST_SIZE)).flatMap { $0 >= 0 ? $0 : nil }
            metrics.responseHeaderBytes = easy.info(Int(CFCURLINFO_HEADER_SIZE)).flatMap { $0 >= 0 ? $0 : nil }
            metrics.httpVersion = easy.info(Int(CFCURLINFO_HTTP_VERSION)).flatMap(httpVersion)
            metrics.remoteAddress = easy.text(Int(CFCURLINFO_PRIMARY_IP)).flatMap(address)
            metrics.remotePort = easy.info(Int(CFCURLINFO_PRIMARY_PORT)).flatMap {
                (1...65_535).contains($0) ? $0 : nil
            }
            return metrics
        }

        /// The seconds between the end of the phase before (`from`) and the end of this one (`to`), both in
        /// microseconds from the start; `nil` when either is unknown or negative, or this one ends first.
        static func phase(from: Int64?, to: Int64?) -> TimeInterval? {
            guard let from, let to, from >= 0, to >= from else {
                return nil
            }
            return AttemptMetrics.seconds(microseconds: to - from)
        }

        /// `HTTP/1.1` for libcurl's `CURL_HTTP_VERSION_1_1`, and so on; `nil` for 0 (no HTTP) or another value.
        static func httpVersion(_ value: Int) -> String? {
            switch value {
            case Int(CFCURL_HTTP_VERSION_1_0): "HTTP/1.0"
            case Int(CFCURL_HTTP_VERSION_1_1): "HTTP/1.1"
            case Int(CFCURL_HTTP_VERSION_2_0): "HTTP/2"
            case Int(CFCURL_HTTP_VERSION_3): "HTTP/3"
            default: nil
            }
        }

        /// `text` when it is an IP address as libcurl writes one (hex digits, dots and colons, at most 45
        /// characters, IPv6's longest); `nil` otherwise.
        static func address(_ text: String) -> String? {
            guard !text.isEmpty, text.utf8.count <= 45,
                text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") || $0.isHexDigit })
            else {
                return nil
            }
            return text
        }
    }

    extension UInt8 {
        fileprivate var isHexDigit: Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
        }
    }

    extension CurlEasy {
        /// A time item (`*_TIME_T`), in microseconds from the transfer's start; `nil` when libcurl has none or it is
        /// negative.
        func microseconds(_ item: Int) -> Int64? {
            var value: Int64 = 0
            guard cfcurl_easy_getinfo_off_t(handle, Int32(item), &value) == CFCURLE_OK, value >= 0 else {
                return nil
            }
            return value
        }

        /// A size item that is a `curl_off_t`; `nil` when libcurl has none, or it is negative or past `Int`.
        func count(offsetInfo item: Int) -> Int? {
            var value: Int64 = 0
            guard cfcurl_easy_getinfo_off_t(handle, Int32(item), &value) == CFCURLE_OK, value >= 0 else {
                return nil
            }
            return Int(exactly: value)
        }

        /// A string item, copied; `nil` when libcurl has none.
        func text(_ item: Int) -> String? {
            var value: UnsafePointer<CChar>?
            guard cfcurl_easy_getinfo_string(handle, Int32(item), &value) == CFCURLE_OK, let value else {
                return nil
            }
            return String(cString: value)
        }
    }
#endif
