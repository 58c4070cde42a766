#if os(Linux)
    import CFetchCurl
    import Foundation

    /// One open WebSocket over a libcurl `CURLOPT_CONNECT_ONLY` handle, after its opening handshake: the framing,
    /// the answers to pings, the closing handshake and the end of the connection.
    ///
    /// Confined to ``CurlWebSocketLoop``'s thread: the loop creates it from a ``CurlWebSocketHandover``, runs every
    /// ``Command`` on it and polls its socket; nothing else touches it or its easy handle.
    ///
    /// Reads happen while a receive, a ping or the closing handshake waits, or while the channel's
    /// ``CurlWebSocketReadAhead`` has room; then they stop: the decoder holds at most one message
    /// (``maximumMessageSize``) and one read's worth of bytes, the read-ahead its bound, and a consumer that falls
    /// behind holds the server back through TCP.
    final class CurlWebSocketConnection {
        /// What a channel asks of its connection.
        enum Command: Sendable {
            /// ``WebSocketChannel/receive(_:)``.
            case receive(@Sendable (Result<WebSocketChannelEvent, any Error>) -> Void)
            /// ``WebSocketChannel/send(_:_:)``.
            case send(WebSocketMessage, @Sendable ((any Error)?) -> Void)
            /// ``WebSocketChannel/ping(_:)``.
            case ping(@Sendable ((any Error)?) -> Void)
            /// ``WebSocketChannel/close(code:reason:)``.
            case close(code: Int, reason: String)
            /// ``WebSocketChannel/cancel()``.
            case cancel
            /// The channel took a message from a full read-ahead: read again.
            case resume
            /// Reports ``queuedControlBytes``, for the tests that bound it.
            case measure(@Sendable (_ queuedControlBytes: Int) -> Void)
        }

        /// How a connection ended, which every later call is answered with.
        private enum Outcome {
            /// The closing handshake is done (or gave up waiting): the code and reason to report.
            case closed(code: Int?, reason: String)
            /// A violation, a drop, a network failure or a cancellation: the error every waiter gets.
            case failed(any Error)
        }

        /// Where the connection is in its life.
        private enum Phase {
            /// Messages go both ways.
            case open
            /// The client's close frame is queued or sent; waiting (until `deadline`) for the server's.
            case closing(code: Int, reason: String, deadline: ContinuousClock.Instant)
            /// The outcome is known; the last frames (a close) are being written until `deadline`.
            case finishing(deadline: ContinuousClock.Instant)
            /// The easy handle is freed and the socket closed.
            case ended
        }

        /// How long the closing handshake waits for the server's close frame, and a last close frame to be written.
        static let closingTimeout: Duration = .seconds(5)
        /// The most bytes read from libcurl at once.
        static let readChunkSize = 64 * 1024

        /// The handshake request, which every error names.
        let request: any Request
        /// The connected socket, for poll(2).
        let socket: Int32
        /// The connected handle; nil once freed (which closed the socket).
        private var easy: CurlEasy?
        /// The server's frames, as they arrive.
        private var decoder: WebSocketFrameDecoder
        /// The permessage-deflate agreement, or nil when messages go uncompressed.
        let compression: PerMessageDeflate?
        /// Compresses the messages sent; made at the first one, and dropped for good if zlib fails (the messages
        /// after it go uncompressed, which leaves the server's window as it was).
        private var deflater: Zlib.Deflater?
        /// Whether compressing failed once: the rest go uncompressed.
        private var compressionFailed = false
        /// Where the connection is in its life.
        private var phase = Phase.open
        /// How it ended, once it has.
        private var outcome: Outcome?

        /// The receive waiting for the next message: at most one.
        private var receiver: (@Sendable (Result<WebSocketChannelEvent, any Error>) -> Void)?
        /// The decoded messages that no receive has taken yet, shared with the channel.
        private let readAhead: CurlWebSocketReadAhead
        /// Pings sent and not yet answered, oldest first, by payload.
        private var pings: [(payload: Data, completion: @Sendable ((any Error)?) -> Void)] = []
        /// The pings sent so far: the next one's payload.
        private var pingCount: UInt64 = 0

        /// Frames to write, oldest first, each with its opcode and the completion of its send (none for control
        /// frames).
        ///
        /// Bounded whatever the server does: its data frames are the caller's sends, each waiting for its completion;
        /// of control frames it holds at most one close, one unsent ping of the client's (a ping made while one waits
        /// to go out shares it) and one unsent pong (a ping from the server replaces the payload of the pong not yet
        /// sent, as RFC 6455 §5.5.3 allows: only the latest ping is answered), beside the one frame being written.
        private var outbox: [(opcode: WebSocketOpcode, frame: Data, completion: (@Sendable ((any Error)?) -> Void)?)] =
            []
        /// How many bytes of `outbox[0]` are written.
        private var written = 0
        /// Whether the last write stopped at `CURLE_AGAIN`, so the loop waits for POLLOUT.
        private(set) var isWriteBlocked = false
        /// Whether libcurl may hold bytes not read yet: the last read stopped before `CURLE_AGAIN` (TLS can hold
        /// decrypted bytes that poll(2) does not announce), or the handshake left some in the decoder.
        private var mayHaveUnreadBytes = true
        /// Whether the decoder may hold whole messages not handed on yet: decoding stopped because the read-ahead
        /// was full, and a receive that frees room must decode them even if no byte arrives.
        private var decoderMayHoldMessages = false

        /// Where libcurl reads into, reused from read to read.
        private let readBuffer: UnsafeMutableRawBufferPointer

        init(_ handover: CurlWebSocketHandover) {
            request = handover.request
            easy = handover.easy
            socket = handover.socket
            compression = handover.compression
            decoder = WebSocketFrameDecoder(
                maximumMessageSize: handover.maximumMessageSize, compression: handover.compression)
            decoder.append(handover.bytesAfterHead)
            readAhead = handover.readAhead
            readBuffer = .allocate(byteCount: Self.readChunkSize, alignment: 1)
        }

        deinit {
            end()
            readBuffer.deallocate()
        }

        // MARK: - What the loop asks

        /// Whether the socket is closed and the handle freed.
        var hasEnded: Bool {
            if case .ended = phase {
                return true
            }
            return false
        }

        /// The poll(2) events to wait for; 0 for none.
        var pollEvents: Int16 {
            guard easy != nil else {
                return 0
            }
            var events: Int16 = 0
            if wantsToRead {
                events |= Int16(POLLIN)
            }
            if isWriteBlocked {
                events |= Int16(POLLOUT)
            }
            return events
        }

        /// When the loop must call ``checkDeadline(now:)`` at the latest.
        var deadline: ContinuousClock.Instant? {
            switch phase {
            case .closing(_, _, let deadline), .finishing(let deadline):
                deadline
            case .open, .ended:
                nil
            }
        }

        /// Runs a channel's command.
        func run(_ command: Command) {
            switch command {
            case .receive(let completion):
                receive(completion)
            case .send(let message, let completion):
                send(message, completion)
            case .ping(let completion):
                ping(completion)
            case .close(let code, let reason):
                close(code: code, reason: reason)
            case .cancel:
                finish(.failed(FetchError.cancelled(request: request)))
            case .resume:
                break  // makeProgress reads, now that there is room
            case .measure(let report):
                report(queuedControlBytes)
            }
            makeProgress()
        }

        /// Handles what poll(2) reported for the socket.
        func socketIsReady(_ events: Int16) {
            if events & Int16(POLLOUT) != 0 {
                isWriteBlocked = false
            }
            if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                mayHaveUnreadBytes = true
            }
            makeProgress()
        }

        /// Ends a closing handshake or a last write whose time is up.
        func checkDeadline(now: ContinuousClock.Instant) {
            switch phase {
            case .closing(let code, let reason, let deadline) where deadline <= now:
                // The server sent no close in time: report the code the client sent, and drop.
                finish(.closed(code: code, reason: reason))
            case .finishing(let deadline) where deadline <= now:
                end()
            default:
                break
            }
        }

        /// Drops the connection of a channel that was released.
        func release() {
            if outcome == nil {
                finish(.failed(FetchError.cancelled(request: request)))
            }
            end()
        }

        // MARK: - Commands

        /// Hands over the waiting message or the outcome, or waits for the next message.
        private func receive(_ completion: @escaping @Sendable (Result<WebSocketChannelEvent, any Error>) -> Void) {
            if let (message, _) = readAhead.take() {
                completion(.success(.message(message)))
            } else if let outcome {
                completion(Self.event(for: outcome, request: request))
            } else {
                receiver = completion
            }
        }

        /// Queues `message` as one masked frame, unless the connection is closing or over.
        private func send(_ message: WebSocketMessage, _ completion: @escaping @Sendable ((any Error)?) -> Void) {
            guard let refusal = refusalToSend else {
                let opcode: WebSocketOpcode
                switch message {
                case .text:
                    opcode = .text
                case .binary:
                    opcode = .binary
                }
                if let compressed = compressed(message.bytes) {
                    queue(opcode, payload: compressed, isCompressed: true, completion: completion)
                } else {
                    queue(opcode, payload: message.bytes, completion: completion)
                }
                return
            }
            completion(refusal)
        }

        /// Queues a ping with a payload of its own, which its pong completes.
        private func ping(_ completion: @escaping @Sendable ((any Error)?) -> Void) {
            if let refusal = refusalToSend {
                completion(refusal)
                return
            }
            if unsentIndex(of: .ping) != nil, let last = pings.last {
                // A ping frame still waits to go out: its pong answers this ping too.
                pings.append((last.payload, completion))
                return
            }
            pingCount &+= 1
            let payload = withUnsafeBytes(of: pingCount.bigEndian) { Data($0) }
            pings.append((payload, completion))
            queue(.ping, payload: payload, completion: nil)
        }

        /// Answers the server's ping: replaces the payload of a pong that has not started to go out, or queues one.
        private func pong(_ payload: Data) {
            if let unsent = unsentIndex(of: .pong) {
                outbox[unsent].frame = WebSocketFrameEncoder.frame(
                    .pong, payload: payload, maskingKey: WebSocketFrameEncoder.randomMaskingKey())
            } else {
                queue(.pong, payload: payload, completion: nil)
            }
        }

        /// The index in the outbox of a frame of `opcode` none of whose bytes are written yet.
        private func unsentIndex(of opcode: WebSocketOpcode) -> Int? {
            outbox.indices.last { index in
                outbox[index].opcode == opcode && (index > 0 || written == 0)
            }
        }

        /// The bytes of control frames (pings, pongs, a close) in the outbox: what a server that sends control
        /// frames and reads nothing could otherwise grow.
        var queuedControlBytes: Int {
            outbox.reduce(0) { total, entry in
                entry.opcode.isControl ? total + entry.frame.count : total
            }
        }

        /// Starts the closing handshake: the close frame goes out, and reading goes on for the server's.
        private func close(code: Int, reason: String) {
            guard case .open = phase, outcome == nil else {
                return  // closing already, or over
            }
            queue(.close, payload: WebSocketFrameEncoder.closePayload(code: code, reason: reason), completion: nil)
            phase = .closing(code: code, reason: reason, deadline: .now + Self.closingTimeout)
            failPings(with: Self.error(for: .closed(code: code, reason: reason), request: request))
        }

        /// Why a frame cannot be sent now, or nil when it can.
        private var refusalToSend: (any Error)? {
            if let outcome {
                return Self.error(for: outcome, request: request)
            }
            if case .closing(let code, let reason, _) = phase {
                return Self.error(for: .closed(code: code, reason: reason), request: request)
            }
            return nil
        }

        /// `payload` compressed as a permessage-deflate message, or nil to send it as it is: nothing was agreed, the
        /// client's window must be 2^8 bytes (which zlib cannot make), or zlib failed.
        ///
        /// Every message is compressed once it is agreed, even a short one: with context kept, a short message
        /// that repeats what came before shrinks most, and sending one uncompressed while the deflater saw it
        /// would set the two windows apart.
        private func compressed(_ payload: Data) -> Data? {
            guard let compression, let windowBits = compression.clientCompressionWindowBits, !compressionFailed
            else {
                return nil
            }
            if deflater == nil {
                deflater = Zlib.Deflater(windowBits: windowBits)
            } else if compression.clientNoContextTakeover {
                deflater?.reset()
            }
            guard let result = deflater?.compress(payload) else {
                compressionFailed = true
                deflater = nil
                return nil
            }
            return result
        }

        /// Adds a frame masked with a fresh key to the outbox; `isCompressed` sets RSV1.
        private func queue(
            _ opcode: WebSocketOpcode, payload: Data, isCompressed: Bool = false,
            completion: (@Sendable ((any Error)?) -> Void)?
        ) {
            let frame = WebSocketFrameEncoder.frame(
                opcode, payload: payload, isCompressed: isCompressed,
                maskingKey: WebSocketFrameEncoder.randomMaskingKey())
            outbox.append((opcode, frame, completion))
        }

        // MARK: - Reading and writing

        /// Whether a receive, a ping or the closing handshake waits for the server, or the read-ahead has room.
        private var wantsToRead: Bool {
            guard easy != nil else {
                return false
            }
            switch phase {
            case .open:
                return receiver != nil || !pings.isEmpty || readAhead.hasRoom
            case .closing:
                return true  // for the server's close frame
            case .finishing, .ended:
                return false
            }
        }

        /// Writes what it can, reads what is wanted and there, and ends a connection whose last frame is written.
        private func makeProgress() {
            if mayHaveUnreadBytes || decoderMayHoldMessages {
                read()
            }
            if !isWriteBlocked {
                write()  // after the read, which may have queued a pong or a close
            }
            if case .finishing = phase, outbox.isEmpty {
                end()
            }
        }

        /// Writes queued frames until they are all written or libcurl can take no more.
        private func write() {
            while let easy, let first = outbox.first {
                var sent = 0
                let code = first.frame.withUnsafeBytes { bytes in
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[written...])
                    return cfcurl_easy_send(easy.handle, rest.baseAddress, rest.count, &sent)
                }
                if Int(code) == CFCURLE_AGAIN || (code == CFCURLE_OK && sent == 0) {
                    isWriteBlocked = true
                    return
                }
                guard code == CFCURLE_OK else {
                    fail(code, doing: "sending a frame")
                    return
                }
                written += sent
                if written >= first.frame.count {
                    outbox.removeFirst()
                    written = 0
                    first.completion?(nil)
                }
            }
        }

        /// Decodes what is buffered and reads more while it is wanted, until libcurl has no more (`CURLE_AGAIN`).
        private func read() {
            while wantsToRead {
                // The read-ahead's room changes on other threads: a decode that stopped for want of it goes round
                // again while there is room, and only a drained decoder reads more from libcurl.
                decoderMayHoldMessages = !decodeBuffered()
                guard !decoderMayHoldMessages, let easy else {
                    continue  // mayHaveUnreadBytes stays set: libcurl was not drained
                }
                var received = 0
                let code = cfcurl_easy_recv(easy.handle, readBuffer.baseAddress, readBuffer.count, &received)
                if Int(code) == CFCURLE_AGAIN {
                    mayHaveUnreadBytes = false
                    return
                }
                guard code == CFCURLE_OK else {
                    fail(code, doing: "receiving")
                    return
                }
                guard received > 0 else {
                    serverClosedTheConnection()
                    return
                }
                decoder.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<min(received, readBuffer.count)]))
            }
        }

        /// Hands on every message and control frame the decoder holds, while they are wanted.
        ///
        /// - Returns: Whether the decoder is drained (or the connection failed); `false` when decoding stopped
        ///   because nothing more is wanted.
        private func decodeBuffered() -> Bool {
            while wantsToRead {
                let inbound: WebSocketInbound?
                do {
                    inbound = try decoder.next()
                } catch {
                    violated(error)
                    return true
                }
                guard let inbound else {
                    return true
                }
                switch inbound {
                case .message(let message):
                    deliver(message)
                case .ping(let payload):
                    pong(payload)
                    write()
                case .pong(let payload):
                    answered(payload)
                case .close(let code, let reason):
                    serverClosed(code: code, reason: reason)
                }
            }
            return false
        }

        /// Hands `message` to the waiting receive, or keeps it for a later one.
        private func deliver(_ message: WebSocketMessage) {
            if let receiver {
                self.receiver = nil
                receiver(.success(.message(message)))
            } else if case .open = phase {
                readAhead.append(message)  // reading stops when the read-ahead is full, until a receive takes one
            }
            // While closing, a message that no receive waits for is dropped: the client asked to close.
        }

        /// Completes the ping that `payload` answers, and those sent before it (a server may answer only the latest).
        private func answered(_ payload: Data) {
            guard let index = pings.lastIndex(where: { $0.payload == payload }) else {
                return  // an unsolicited pong is a heartbeat (RFC 6455 §5.5.3)
            }
            let answered = pings[...index]
            pings.removeFirst(index + 1)
            for ping in answered {
                ping.completion(nil)
            }
        }

        // MARK: - Ending

        /// The server's close frame: echoed with its code while open; the end of the handshake while closing.
        private func serverClosed(code: Int?, reason: String) {
            if case .closing = phase {
                finish(.closed(code: code, reason: reason))
                end()
                return
            }
            // Echo the server's code (RFC 6455 §5.5.1), then drop once it is written.
            let payload = code.map { WebSocketFrameEncoder.closePayload(code: $0, reason: "") } ?? Data()
            queue(.close, payload: payload, completion: nil)
            finish(.closed(code: code, reason: reason))
        }

        /// The server broke RFC 6455: close with the violation's code, and fail with it.
        private func violated(_ violation: WebSocketViolation) {
            if case .open = phase {  // while closing, the client's close frame has gone already: one is all it sends
                queue(
                    .close,
                    payload: WebSocketFrameEncoder.closePayload(code: violation.closeCode, reason: violation.reason),
                    completion: nil)
            }
            finish(
                .failed(
                    FetchError.webSocketClosed(code: violation.closeCode, reason: violation.reason, request: request)))
        }

        /// The end of the connection: a drop (1006) while open; the end of the handshake while closing.
        private func serverClosedTheConnection() {
            if case .closing(let code, let reason, _) = phase {
                finish(.closed(code: code, reason: reason))
            } else {
                let reason = "the server closed the connection without a close frame"
                finish(.failed(FetchError.webSocketClosed(code: 1006, reason: reason, request: request)))
            }
            end()
        }

        /// libcurl failed to send or receive: the connection ends with its error.
        private func fail(_ code: Int32, doing action: String) {
            let detail = "\(action) on the WebSocket: \(easy?.errorMessage ?? "no detail from libcurl")"
            let error = CurlFailure.error(for: code, detail: detail, url: request.url)
            finish(.failed(CurlTransport.naming(error, request, timeout: 0)))
            end()
        }

        /// Settles the outcome once, answers whatever waits, and lets the last queued frames go out before
        /// ``end()``.
        private func finish(_ ending: Outcome) {
            guard outcome == nil else {
                return
            }
            outcome = ending
            if case .failed(let error) = ending, case .cancelled = error.fetchKind {
                readAhead.removeAll()
                end()  // nothing more goes out
                return
            }
            if let receiver, readAhead.isEmpty {
                self.receiver = nil
                receiver(Self.event(for: ending, request: request))
            }
            failPings(with: Self.error(for: ending, request: request))
            if !hasEnded {
                phase = .finishing(deadline: .now + Self.closingTimeout)
            }
        }

        /// Fails every ping still waiting for its pong.
        private func failPings(with error: any Error) {
            let waiting = pings
            pings.removeAll()
            for ping in waiting {
                ping.completion(error)
            }
        }

        /// Frees the easy handle (which closes the socket) once, and fails what is still queued.
        private func end() {
            guard easy != nil else {
                return
            }
            easy = nil  // CurlEasy's deinit calls curl_easy_cleanup, which closes the socket
            phase = .ended
            if outcome == nil {
                outcome = .failed(FetchError.cancelled(request: request))
            }
            let ending = outcome ?? .failed(FetchError.cancelled(request: request))
            let error = Self.error(for: ending, request: request)
            let unsent = outbox
            outbox.removeAll()
            for entry in unsent {
                entry.completion?(error)
            }
            if let receiver {
                self.receiver = nil
                receiver(Self.event(for: ending, request: request))
            }
            failPings(with: error)
        }

        /// What a receive gets once the connection is over.
        private static func event(
            for outcome: Outcome, request: any Request
        ) -> Result<WebSocketChannelEvent, any Error> {
            switch outcome {
            case .closed(let code, let reason):
                .success(.closed(code: code, reason: reason))
            case .failed(let error):
                .failure(error)
            }
        }

        /// What a send or a ping gets once the connection is over.
        private static func error(for outcome: Outcome, request: any Request) -> any Error {
            switch outcome {
            case .closed(let code, let reason):
                // 1005: no status code was present (RFC 6455 §7.4.1).
                FetchError.webSocketClosed(code: code ?? 1005, reason: reason, request: request)
            case .failed(let error):
                error
            }
        }
    }
#endif
