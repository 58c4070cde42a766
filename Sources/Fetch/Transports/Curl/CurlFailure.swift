#if os(Linux)
    import CFetchCurl
    import Foundation

    /// How libcurl's result codes become Fetch's errors.
    package enum CurlFailure {
        /// The error for a transfer that ended with `code`: ``FetchError/timedOut(request:seconds:)`` for a timeout,
        /// ``FetchError/cancelled(request:)`` for an abort, and otherwise ``FetchError/transport(_:request:)`` with the nearest
        /// `URLError` code, `url` as its failing URL and libcurl's message as its description.
        ///
        /// A transfer cut midway (`CURLE_PARTIAL_FILE`) that passes `received` (the body's bytes so far, and the
        /// length its head announced) says so as the URLSession transport does: `the connection closed after 500 of
        /// 1000 bytes of the body`.
        package static func error(
            for code: Int32, detail: String?, url: URL?, received: (bytes: Int, of: Int64?)? = nil
        ) -> any Error {
            if Int(code) == CFCURLE_OPERATION_TIMEDOUT {
                return FetchError.timedOut()
            }
            let reason = String(cString: cfcurl_easy_strerror(code))
            var message = "libcurl error \(code) (\(reason))"
            if let detail, !detail.isEmpty {
                message += ": \(detail)"
            }
            if Int(code) == CFCURLE_PARTIAL_FILE, let received {
                let of = received.of.map { $0 > 0 ? " of \($0)" : "" } ?? ""
                message = "the connection closed after \(received.bytes)\(of) bytes of the body (\(message))"
            }
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
            if let url {
                userInfo[NSURLErrorFailingURLErrorKey] = url
            }
            return FetchError.transport(URLError(urlErrorCode(for: code), userInfo: userInfo))
        }

        /// The `URLError` code nearest to a libcurl result code.
        package static func urlErrorCode(for code: Int32) -> URLError.Code {
            switch Int(code) {
            case CFCURLE_UNSUPPORTED_PROTOCOL:
                .unsupportedURL
            case CFCURLE_URL_MALFORMAT:
                .badURL
            case CFCURLE_COULDNT_RESOLVE_HOST, CFCURLE_COULDNT_RESOLVE_PROXY:
                .cannotFindHost
            case CFCURLE_COULDNT_CONNECT:
                .cannotConnectToHost
            case CFCURLE_OPERATION_TIMEDOUT:
                .timedOut
            case CFCURLE_GOT_NOTHING, CFCURLE_SEND_ERROR, CFCURLE_RECV_ERROR, CFCURLE_PARTIAL_FILE,
                CFCURLE_HTTP2_STREAM:
                .networkConnectionLost
            case CFCURLE_WEIRD_SERVER_REPLY, CFCURLE_HTTP2:
                .badServerResponse
            case CFCURLE_SSL_CONNECT_ERROR, CFCURLE_SSL_CIPHER, CFCURLE_SSL_CACERT_BADFILE:
                .secureConnectionFailed
            case CFCURLE_PEER_FAILED_VERIFICATION, CFCURLE_SSL_PINNEDPUBKEYNOTMATCH, CFCURLE_SSL_ISSUER_ERROR,
                CFCURLE_SSL_INVALIDCERTSTATUS:
                .serverCertificateUntrusted
            case CFCURLE_SSL_CERTPROBLEM:
                .clientCertificateRejected
            case CFCURLE_SSL_CLIENTCERT:
                .clientCertificateRequired
            case CFCURLE_BAD_CONTENT_ENCODING:
                .cannotDecodeContentData
            case CFCURLE_READ_ERROR, CFCURLE_SEND_FAIL_REWIND:
                .requestBodyStreamExhausted
            case CFCURLE_ABORTED_BY_CALLBACK:
                .cancelled
            default:
                .unknown
            }
        }
    }
#endif
