#if os(Linux)
    import Foundation

    /// The server's answer to a WebSocket opening handshake, read from raw bytes: the response head (at most 64 KiB)
    /// and, for any status but `101`, up to 64 KiB of its body (by `Content-Length`, chunked, or until the close).
    struct WebSocketHandshakeReply {
        /// The largest response head accepted.
        static let maximumHeadBytes = 64 * 1024
        /// The most bytes of a refusal's body kept: what the error parser gets to read.
        static let maximumBodyBytes = 64 * 1024
        /// How many bytes of chunk framing a chunked body may add on top of ``maximumBodyBytes`` before reading stops.
        private static let maximumChunkFraming = 16 * 1024

        /// How the body of a refusal ends.
        enum BodyFraming: Equatable {
            /// No body: 1xx, 204, 304, or a length of 0.
            case none
            /// `Content-Length` bytes.
            case length(Int64)
            /// `Transfer-Encoding: chunked`.
            case chunked
            /// Until the server closes the connection.
            case untilClose
        }

        /// Reads the head line by line, strictly.
        private var parser = ResponseHeadParser(maximumHeadBytes: Self.maximumHeadBytes)
        /// Bytes received and not yet taken into the head or the body.
        private var pending = Data()
        /// The raw bytes of a chunked body, framing included.
        private var chunked = Data()

        /// The status once the head is complete.
        private(set) var status: Int?
        /// The head's fields, in order, once it is complete.
        private(set) var headers = HeaderFields([])
        private(set) var framing = BodyFraming.none
        /// The body of a refusal, up to ``maximumBodyBytes``.
        private(set) var body = Data()
        /// Whether the body is complete (or as much of it as is kept has arrived).
        private(set) var isBodyComplete = false

        /// Whether the head is complete.
        var hasHead: Bool { status != nil }

        /// The bytes after a `101` head: the start of the first frames.
        var bytesAfterHead: Data { pending }

        /// Reads `bytes` into the head and then the body.
        ///
        /// - Throws: ``ResponseHeadParser/Failure`` for a head that is invalid or over 64 KiB.
        mutating func append(_ bytes: Data) throws(ResponseHeadParser.Failure) {
            guard status == nil else {
                appendBody(bytes)
                return
            }
            pending.append(bytes)
            try readHead()
        }

        /// The connection closed: a body read until the close, or cut short, is as complete as it gets.
        mutating func connectionClosed() {
            isBodyComplete = true
        }

        private mutating func readHead() throws(ResponseHeadParser.Failure) {
            var lineStart = pending.startIndex
            defer { pending = Data(pending[lineStart...]) }
            while status == nil, let newline = pending[lineStart...].firstIndex(of: 0x0A) {
                let progress = try pending[lineStart...newline].withUnsafeBytes { line in
                    Result { () throws(ResponseHeadParser.Failure) in try parser.receive(line) }
                }.get()
                lineStart = pending.index(after: newline)
                switch progress {
                case .finalHeadEnded:
                    finishHead()
                case .informationalHeadEnded where parser.statusCode == 101:
                    finishHead()
                case .inHead, .informationalHeadEnded, .afterHead:
                    break  // another 1xx head is skipped
                }
            }
            if status == nil, pending.distance(from: lineStart, to: pending.endIndex) > Self.maximumHeadBytes {
                throw .headTooLarge(limit: Self.maximumHeadBytes)
            }
        }

        private mutating func finishHead() {
            status = parser.statusCode
            headers = HeaderFields(parser.fieldLines)
            framing = Self.framing(status: parser.statusCode, headers: headers)
            if framing == .none {
                isBodyComplete = true
            }
        }

        /// Called once the head is read: the bytes that followed it in the same read belong to the body.
        mutating func takeBodyFromPending() {
            guard let status, status != 101, !pending.isEmpty else {
                return
            }
            let bytes = pending
            pending = Data()
            appendBody(bytes)
        }

        private mutating func appendBody(_ bytes: Data) {
            guard !isBodyComplete else {
                return
            }
            switch framing {
            case .none:
                isBodyComplete = true
            case .length(let length):
                let wanted = Int(min(length, Int64(Self.maximumBodyBytes)))
                body.append(bytes.prefix(max(0, wanted - body.count)))
                isBodyComplete = body.count >= wanted
            case .untilClose:
                body.append(bytes.prefix(max(0, Self.maximumBodyBytes - body.count)))
                isBodyComplete = body.count >= Self.maximumBodyBytes
            case .chunked:
                chunked.append(bytes)
                let (decoded, isComplete) = Self.dechunk(chunked, limit: Self.maximumBodyBytes)
                body = decoded
                isBodyComplete =
                    isComplete || chunked.count > Self.maximumBodyBytes + Self.maximumChunkFraming
            }
        }

        /// How the body of a response with `status` and `headers` ends (RFC 9112 §6.3).
        static func framing(status: Int, headers: HeaderFields) -> BodyFraming {
            if status == 101 || status == 204 || status == 304 || (100...199).contains(status) {
                return .none
            }
            if let encoding = headers["Transfer-Encoding"],
                encoding.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased() == "chunked"
            {
                return .chunked
            }
            if let value = headers["Content-Length"], let length = WireNumber.contentLength(value) {
                return length == 0 ? .none : .length(length)
            }
            return .untilClose
        }

        /// The data of a chunked body (RFC 9112 §7.1) as far as it has arrived, at most `limit` bytes, and whether
        /// it is complete: the last chunk has arrived, the limit is reached, or the framing is invalid (reading
        /// stops there).
        static func dechunk(_ raw: Data, limit: Int) -> (body: Data, isComplete: Bool) {
            var body = Data()
            var index = raw.startIndex
            while true {
                guard let newline = raw[index...].firstIndex(of: 0x0A) else {
                    return (body, false)
                }
                var sizeEnd = newline
                if let extensionStart = raw[index..<newline].firstIndex(of: 0x3B) {  // ";"
                    sizeEnd = extensionStart
                }
                let digits = raw[index..<sizeEnd].filter { $0 != 0x0D && $0 != 0x20 && $0 != 0x09 }
                guard let size = hexadecimal(digits) else {
                    return (body, true)
                }
                index = raw.index(after: newline)
                guard size > 0 else {
                    return (body, true)
                }
                let available = raw.distance(from: index, to: raw.endIndex)
                let take = min(size, available, limit - body.count)
                body.append(raw[index..<raw.index(index, offsetBy: take)])
                if body.count >= limit {
                    return (body, true)
                }
                guard available >= size else {
                    return (body, false)
                }
                index = raw.index(index, offsetBy: size)
                // The CR LF after the chunk's data.
                guard let end = raw[index...].firstIndex(of: 0x0A) else {
                    return (body, false)
                }
                index = raw.index(after: end)
            }
        }

        /// A chunk size: 1 to 15 hexadecimal digits (so that it fits an `Int`), or nil.
        private static func hexadecimal(_ digits: Data) -> Int? {
            guard !digits.isEmpty, digits.count <= 15 else {
                return nil
            }
            var value = 0
            for digit in digits {
                let nibble: Int
                switch digit {
                case 0x30...0x39:
                    nibble = Int(digit - 0x30)
                case 0x41...0x46:
                    nibble = Int(digit - 0x41 + 10)
                case 0x61...0x66:
                    nibble = Int(digit - 0x61 + 10)
                default:
                    return nil
                }
                value = value << 4 | nibble  // at most 15 digits: 60 bits, no overflow
            }
            return value
        }
    }
#endif
