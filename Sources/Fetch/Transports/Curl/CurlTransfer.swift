#if os(Linux)
    import CFetchCurl
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One request on an easy handle, from its configuration to its outcome. Touched by the loop's thread only: its
    /// callbacks run inside `curl_multi_perform`, on that thread.
    final class CurlTransfer {
        /// Where the request body comes from.
        private enum Upload {
            case data(Data, offset: Int)
            case stream(InputStream)
        }

        let call: CurlCall
        let job: CurlJob
        let easy: CurlEasy

        /// The request's URL, read from it once (each read of a `URLRequest`'s copies it on Linux).
        private var url: URL?
        private var headerList: UnsafeMutablePointer<cfcurl_slist>?
        private var upload: Upload?
        private var uploadError: String?

        // The response, as the callbacks receive it.
        private var head = ResponseHeadParser()
        /// Why the head was refused, which ended the transfer.
        private var headFailure: ResponseHeadParser.Failure?
        private var body = Data()
        /// The body's bytes received so far, streamed ones included: what a cut body's error reports.
        private var bodyBytesReceived = 0
        /// Whether the body grew past the job's limit, which ended the transfer.
        private var isTooLarge = false
        /// Whether a streamed exchange has delivered its head.
        private var isHeadDelivered = false
        /// Whether the request has been sent a second time (see ``preparesToResend(after:)``).
        private var wasResent = false
        /// When the transfer was first added, from which a resend's timeout counts.
        private let started: ContinuousClock.Instant
        /// When the transfer's request was (last) handed to libcurl: its metrics' start.
        private var sentAt: (date: Date, instant: ContinuousClock.Instant)

        init(call: CurlCall, job: CurlJob, easy: CurlEasy) {
            self.call = call
            self.job = job
            self.easy = easy
            let now = ContinuousClock.now
            started = now
            sentAt = (Date(), now)
        }

        /// The transfer whose ``configure(options:library:)`` named it the private data of `easy`, while it runs.
        static func of(_ easy: OpaquePointer) -> CurlTransfer? {
            var pointer: UnsafePointer<CChar>?
            guard cfcurl_easy_getinfo_string(easy, Int32(CFCURLINFO_PRIVATE), &pointer) == CFCURLE_OK, let pointer
            else {
                return nil
            }
            return Unmanaged<CurlTransfer>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
        }

        // MARK: - Configuration

        /// Sets every option of the request on the (freshly reset) easy handle.
        func configure(options: CurlTransport.Options, library: CurlLibrary) throws {
            let request = job.request
            guard let url = request.url else {
                throw FetchError.invalidRequest("the URLRequest has no URL")
            }
            self.url = url
            try check(easy.set(Int(CFCURLOPT_URL), url.absoluteString), "CURLOPT_URL", url)
            try configureTransportOptions(options, library: library, url: url)
            if options.httpVersion == .http2OverTLS, library.supportsHTTP2, Self.multiplexes(url) {
                // Wait for a connection that may multiplex rather than open another one: only over TLS, where ALPN
                // may pick HTTP/2. Over plain http every connection is HTTP/1.1, and waiting for one that a server
                // closes after each answer runs the requests one at a time.
                _ = easy.set(Int(CFCURLOPT_PIPEWAIT), 1)
            }
            _ = easy.set(Int(CFCURLOPT_TIMEOUT_MS), Self.milliseconds(job.timeout))
            if job.idleTimeout > 0, job.idleTimeout.isFinite {
                // Slower than a byte a second for that long: libcurl ends the transfer with CURLE_OPERATION_TIMEDOUT.
                _ = easy.set(Int(CFCURLOPT_LOW_SPEED_LIMIT), 1)
                _ = easy.set(Int(CFCURLOPT_LOW_SPEED_TIME), Int(min(job.idleTimeout.rounded(.up), 86_400)))
            }

            // The transfer is its handle's private data (found again when the handle finishes) and every callback's
            // context: unretained, since the loop holds the transfer for as long as its handle is in the multi handle.
            let context = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
            _ = easy.set(Int(CFCURLOPT_PRIVATE), pointer: context)
            _ = easy.set(Int(CFCURLOPT_HEADERDATA), pointer: context)
            _ = easy.set(Int(CFCURLOPT_HEADERFUNCTION)) { buffer, size, count, context in
                guard let context else {
                    return 0
                }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                // Any other count than the one given ends the transfer (CURLE_WRITE_ERROR).
                return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
                    ? size * count : 0
            }
            _ = easy.set(Int(CFCURLOPT_WRITEDATA), pointer: context)
            _ = easy.set(Int(CFCURLOPT_WRITEFUNCTION)) { buffer, size, count, context in
                guard let context else {
                    return 0
                }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                // Any other count than the one given ends the transfer (CURLE_WRITE_ERROR).
                return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
                    ? size * count : 0
            }

            try configureMethodAndBody(request, url: url, context: context)
            try configureHeaders(request, url: url, options: options, library: library)
        }

        /// The options every request of the transport shares: protocols, TLS, the error buffer, the sockets.
        private func configureTransportOptions(
            _ options: CurlTransport.Options,
            library: CurlLibrary,
            url: URL
        ) throws {
            if let refused = easy.setConnectionDefaults(options) {
                try check(refused.code, refused.option, url)
            }
            _ = easy.set(Int(CFCURLOPT_SUPPRESS_CONNECT_HEADERS), 1)  // a proxy's CONNECT answer is not the response
            if options.httpVersion == .http2OverTLS, library.supportsHTTP2 {
                _ = easy.set(Int(CFCURLOPT_HTTP_VERSION), Int(CFCURL_HTTP_VERSION_2TLS))
            } else {
                _ = easy.set(Int(CFCURLOPT_HTTP_VERSION), Int(CFCURL_HTTP_VERSION_1_1))
            }
        }

        private func configureMethodAndBody(_ request: URLRequest, url: URL, context: UnsafeRawPointer) throws {
            let method = request.httpMethod ?? "GET"
            if let stream = request.httpBodyStream {
                upload = .stream(stream)
                if stream.streamStatus == .notOpen {
                    stream.open()
                }
            } else if let data = request.httpBody {
                upload = .data(data, offset: 0)
            } else if ["POST", "PUT", "PATCH"].contains(method) {
                upload = .data(Data(), offset: 0)  // sent with Content-Length: 0
            }
            guard let upload else {
                switch method {
                case "GET":
                    _ = easy.set(Int(CFCURLOPT_HTTPGET), 1)
                case "HEAD":
                    _ = easy.set(Int(CFCURLOPT_NOBODY), 1)
                default:
                    try check(easy.set(Int(CFCURLOPT_CUSTOMREQUEST), method), "CURLOPT_CUSTOMREQUEST", url)
                }
                return
            }
            _ = easy.set(Int(CFCURLOPT_POST), 1)
            if method != "POST" {
                try check(easy.set(Int(CFCURLOPT_CUSTOMREQUEST), method), "CURLOPT_CUSTOMREQUEST", url)
            }
            let size: Int64
            switch upload {
            case .data(let data, _):
                size = Int64(data.count)
            case .stream:
                // A known length is sent as Content-Length; otherwise libcurl sends HTTP/1.1 bodies chunked.
                size = request.value(forHTTPHeaderField: "Content-Length").flatMap { WireNumber.byteCount($0) } ?? -1
            }
            _ = easy.set(Int(CFCURLOPT_POSTFIELDSIZE_LARGE), size: size)
            _ = easy.set(Int(CFCURLOPT_READDATA), pointer: context)
            _ = easy.set(Int(CFCURLOPT_READFUNCTION)) { buffer, size, count, context in
                guard let context, let buffer else {
                    return Int(CFCURL_READFUNC_ABORT)
                }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
            }
            // libcurl rewinds the body when it sends the request again, on a fresh connection after a reused one
            // turned out closed: a Data body starts over, a stream cannot.
            _ = easy.set(Int(CFCURLOPT_SEEKDATA), pointer: context)
            _ = easy.set(Int(CFCURLOPT_SEEKFUNCTION)) { context, offset, origin in
                guard let context else {
                    return Int32(CFCURL_SEEKFUNC_FAIL)
                }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.seekBody(to: offset, origin: origin)
            }
        }

        private func configureHeaders(
            _ request: URLRequest,
            url: URL,
            options: CurlTransport.Options,
            library: CurlLibrary
        ) throws {
            var list: UnsafeMutablePointer<cfcurl_slist>?
            var hasContentType = false
            var hasExpect = false
            var acceptEncoding: String?
            // Apart and in order, as the request declared them (URLRequest holds one combined value per name), but
            // for Cookie: a client sends one Cookie line, its pairs joined with "; " (RFC 6265 §5.4).
            for (name, value) in Exchange.joiningCookies(Exchange.fields(declared: job.declaredFields, in: request)) {
                guard !HeaderName.hasLineBreak(name), !HeaderName.hasLineBreak(value), !name.isEmpty else {
                    headerList = list
                    throw FetchError.invalidRequest(
                        "\(request.httpMethod ?? "GET") \(url.absoluteString): the header \(name.debugDescription) has a line break"
                    )
                }
                if HeaderName.equal(name, "Content-Length") {
                    continue  // libcurl sends the length it is given, or chunks
                }
                if HeaderName.equal(name, "Accept-Encoding") {
                    acceptEncoding = value
                    if Self.decodesAll(value, library: library) {
                        continue  // libcurl sends it and decodes the response
                    }
                }
                hasContentType = hasContentType || HeaderName.equal(name, "Content-Type")
                hasExpect = hasExpect || HeaderName.equal(name, "Expect")
                // "Name;" is libcurl's way of sending a header with an empty value.
                list = cfcurl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
            }
            if upload != nil {
                if !hasContentType {
                    list = cfcurl_slist_append(list, "Content-Type:")  // not libcurl's form-urlencoded default
                }
                if !hasExpect {
                    list = cfcurl_slist_append(list, "Expect:")  // no wait for 100 Continue
                }
            }
            headerList = list
            if let list {
                _ = easy.set(Int(CFCURLOPT_HTTPHEADER), pointer: UnsafeRawPointer(list))
            }
            if let acceptEncoding, Self.decodesAll(acceptEncoding, library: library) {
                try check(easy.set(Int(CFCURLOPT_ACCEPT_ENCODING), acceptEncoding), "CURLOPT_ACCEPT_ENCODING", url)
            } else if acceptEncoding == nil, options.requestsCompression, !library.decodableEncodings.isEmpty {
                try check(easy.set(Int(CFCURLOPT_ACCEPT_ENCODING), ""), "CURLOPT_ACCEPT_ENCODING", url)
            }
        }

        /// Whether libcurl can decode every encoding an `Accept-Encoding` value names.
        private static func decodesAll(_ value: String, library: CurlLibrary) -> Bool {
            let names = value.split(separator: ",").map {
                $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            }
            return !names.isEmpty && names.allSatisfy { $0 == "identity" || library.decodableEncodings.contains($0) }
        }

        /// Whether a request to `url` may share a connection with others (HTTP/2, which only TLS's ALPN offers).
        static func multiplexes(_ url: URL) -> Bool {
            url.scheme?.lowercased() == "https"
        }

        /// `CURLOPT_TIMEOUT_MS` for `seconds`: rounded up to the millisecond, 0 (none) when not positive and finite.
        static func milliseconds(_ seconds: TimeInterval) -> Int {
            guard seconds.isFinite, seconds > 0 else {
                return 0
            }
            return Int(min((seconds * 1000).rounded(.up), Double(Int32.max)))
        }

        private func check(_ status: Int32, _ option: String, _ url: URL) throws {
            guard status == CFCURLE_OK else {
                let reason = String(cString: cfcurl_easy_strerror(status))
                throw FetchError.invalidRequest("\(url.absoluteString): libcurl refused \(option): \(reason)")
            }
        }

        // MARK: - Callbacks

        /// Reads a line of the head; returns `false`, which ends the transfer, when the head is invalid or too large.
        private func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
            let progress: ResponseHeadParser.Progress
            do {
                progress = try head.receive(line)
            } catch {
                headFailure = error
                return false
            }
            // The blank line that ends the final head: a streamed exchange delivers the head now.
            if progress == .finalHeadEnded, case .stream(let receive) = job.delivery, !isHeadDelivered,
                let response = makeHead(bodyBytes: nil)
            {
                isHeadDelivered = true
                receive(.response(response))
            }
            return true
        }

        /// Keeps or hands on a piece of the body; returns `false`, keeping none of the body, when it grows past the
        /// job's ``CurlJob/maximumBodyBytes``.
        private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
            switch job.delivery {
            case .whole, .head:
                guard body.count + bytes.count <= job.maximumBodyBytes else {
                    isTooLarge = true
                    body = Data()
                    return false
                }
                body.append(bytes.assumingMemoryBound(to: UInt8.self))
            case .stream(let receive):
                receive(.data(Data(bytes)))
            }
            bodyBytesReceived &+= bytes.count  // a count of bytes in memory or handed on: it cannot overflow
            return true
        }

        private func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            switch upload {
            case .data(let data, let offset):
                let count = min(buffer.count, data.count - offset)
                guard count > 0 else {
                    return 0
                }
                let start = data.index(data.startIndex, offsetBy: offset)
                data.copyBytes(
                    to: buffer.bindMemory(to: UInt8.self), from: start..<data.index(start, offsetBy: count))
                upload = .data(data, offset: offset + count)
                return count
            case .stream(let stream):
                guard let start = buffer.bindMemory(to: UInt8.self).baseAddress else {
                    return 0
                }
                let count = stream.read(start, maxLength: buffer.count)
                guard count >= 0 else {
                    uploadError = stream.streamError.map { ErrorText.describe($0) } ?? "the stream failed"
                    return Int(CFCURL_READFUNC_ABORT)
                }
                return count
            case nil:
                return 0
            }
        }

        private func seekBody(to offset: Int64, origin: Int32) -> Int32 {
            guard case .data(let data, _) = upload, origin == SEEK_SET, offset >= 0, offset <= data.count else {
                return Int32(CFCURL_SEEKFUNC_CANTSEEK)
            }
            upload = .data(data, offset: Int(offset))
            return Int32(CFCURL_SEEKFUNC_OK)
        }

        // MARK: - Resending

        /// The methods that RFC 9110 (section 9.2.2) lets a client send again when the connection fails before the
        /// response arrives.
        private static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

        /// Whether the transfer, ended by libcurl's error `code` and out of the multi handle, is to be sent again,
        /// once: the easy handle is then ready to be added back, with the received state cleared, a `Data` body
        /// rewound and the timeout shortened to what is left of it.
        ///
        /// That is the case for an idempotent request whose HTTP/2 connection failed before any of the response
        /// arrived (`CURLE_HTTP2`, `CURLE_HTTP2_STREAM`): when a server ends a connection with a `GOAWAY` (nginx does
        /// after 1,000 requests), libcurl 7.88 fails now and then a request multiplexed on it that the server never
        /// took (curl/curl#3750, #8809), where it should send it again itself.
        func preparesToResend(after code: Int32) -> Bool {
            guard !wasResent, code == CFCURLE_HTTP2 || code == CFCURLE_HTTP2_STREAM, head.statusCode == 0, body.isEmpty,
                !isHeadDelivered, !isTooLarge, uploadError == nil,
                Self.idempotentMethods.contains(job.request.httpMethod ?? "GET")
            else {
                return false
            }
            switch upload {
            case .stream:
                return false  // what was read of it is gone
            case .data(let data, _):
                upload = .data(data, offset: 0)
            case nil:
                break
            }
            if job.timeout.isFinite, job.timeout > 0 {
                let left = job.timeout - (ContinuousClock.now - started) / .seconds(1)
                guard left > 0.001 else {
                    return false
                }
                _ = easy.set(Int(CFCURLOPT_TIMEOUT_MS), Self.milliseconds(left))
            }
            wasResent = true
            sentAt = (Date(), ContinuousClock.now)
            head = ResponseHeadParser()
            return true
        }

        // MARK: - Outcome

        /// The response, or the error that ended the transfer with `code`.
        func outcome(code: Int32) -> Result<(CurlHead, Data), any Error> {
            if let uploadError {
                let message = "could not read the request body stream: \(uploadError)"
                var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
                userInfo[NSURLErrorFailingURLErrorKey] = url
                return .failure(FetchError.transport(URLError(.requestBodyStreamExhausted, userInfo: userInfo)))
            }
            if isTooLarge {
                return .failure(FetchError.responseTooLarge(limit: job.maximumBodyBytes))
            }
            if let headFailure {
                return .failure(Self.badServerResponse(headFailure.description, url: url))
            }
            if let refusal = libcurlRefusedHead(code: code) {
                return .failure(Self.badServerResponse(refusal, url: url))
            }
            guard code == CFCURLE_OK else {
                let declared = makeHead(measured: false, bodyBytes: nil)?.headers["Content-Length"].flatMap(
                    WireNumber.contentLength)
                return .failure(
                    CurlFailure.error(
                        for: code, detail: easy.errorMessage, url: url, received: (bodyBytesReceived, declared)))
            }
            // libcurl 7.88 ends a transfer whose connection closed after a status line, but before the blank line
            // that ends the head, as a success.
            guard head.isComplete else {
                return .failure(Self.badServerResponse(ResponseHeadParser.Failure.headCutShort.description, url: url))
            }
            guard let head = makeHead(bodyBytes: bodyBytesReceived) else {
                return .failure(FetchError.notHTTPResponse())
            }
            return .success((head, body))
        }

        /// Hands `outcome` to whoever waits: the completion, or a stream's last events.
        func deliver(_ outcome: Result<(CurlHead, Data), any Error>) {
            switch (job.delivery, outcome) {
            case (.head(let completion), _):
                completion(outcome)
            case (.whole(let completion), _):
                completion(
                    outcome.flatMap { head, body in
                        head.httpResponse.map { .success(($0, body)) } ?? .failure(FetchError.notHTTPResponse())
                    })
            case (.stream(let receive), .success(let (head, _))):
                if !isHeadDelivered {
                    receive(.response(head))
                }
                receive(.finished(head.metrics))
            case (.stream(let receive), .failure(let error)):
                receive(.failed(error))
            }
        }

        /// What a transfer that libcurl ended with `code` before the final head was complete says about the server's
        /// head, when the code is one of libcurl's own refusals of it: a header line over its limit (100 KB), or a
        /// status line it does not read (`CURLE_UNSUPPORTED_PROTOCOL` once connected, which is not about the URL).
        private func libcurlRefusedHead(code: Int32) -> String? {
            guard !head.isComplete else {
                return nil
            }
            let refusal: String
            switch Int(code) {
            case CFCURLE_OUT_OF_MEMORY, CFCURLE_TOO_LARGE:
                refusal = "the server's response head is larger than libcurl accepts"
            case CFCURLE_UNSUPPORTED_PROTOCOL where (easy.info(Int(CFCURLINFO_LOCAL_PORT)) ?? 0) > 0:
                refusal = "the server's answer is not an HTTP response libcurl reads"
            default:
                return nil
            }
            let reason = String(cString: cfcurl_easy_strerror(code))
            let detail = easy.errorMessage.map { $0.isEmpty ? "" : ": \($0)" } ?? ""
            return "\(refusal) (libcurl error \(code), \(reason)\(detail))"
        }

        /// The error of a transfer whose response head Fetch did not accept: what the server sent, in `message`.
        private static func badServerResponse(_ message: String, url: URL?) -> FetchError {
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: message]
            userInfo[NSURLErrorFailingURLErrorKey] = url
            return FetchError.transport(URLError(.badServerResponse, userInfo: userInfo))
        }

        /// The head, without metrics when `measured` is `false`; with what libcurl measured otherwise, and the
        /// whole decoded body's `bodyBytes` when it has arrived (`nil` for a head whose body is still to come).
        private func makeHead(measured: Bool = true, bodyBytes: Int?) -> CurlHead? {
            guard let url, head.statusCode > 0 else {
                return nil
            }
            var made = CurlHead(
                url: url, statusCode: head.statusCode, httpVersion: head.httpVersion,
                headers: HeaderFields(head.fieldLines))
            if measured {
                made.metrics = CurlMetrics.read(
                    easy, start: sentAt.date, elapsed: (ContinuousClock.now - sentAt.instant).seconds,
                    bodyBytes: bodyBytes)
            }
            return made
        }

        /// Frees the header list and closes the body stream. Called once, when the transfer leaves the multi handle.
        func release() {
            if let headerList {
                cfcurl_slist_free_all(headerList)
                self.headerList = nil
            }
            if case .stream(let stream) = upload {
                stream.close()
            }
            upload = nil
        }
    }
#endif
