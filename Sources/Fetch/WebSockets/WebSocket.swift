import Foundation

/// An open WebSocket connection: messages to send, and the server's messages as an `AsyncSequence`.
///
/// ``RequestPerforming/webSocket(_:errorParser:maximumMessageSize:reconnectPolicy:scheduler:)`` opens one; its
/// opening handshake goes through the performer's middlewares like any request.
///
/// ```swift
/// let socket = try await session.webSocket(ChatRoom(id: 7))
/// try await socket.send(json: ChatLine(text: "hello"))
/// for try await message in socket {
///     let line = try message.decode(ChatLine.self)
///     print(line.text)
/// }
/// ```
///
/// The sequence ends when the closing handshake is done: after ``close(code:reason:)``, or when the server closes
/// with 1000 (normal) or 1001 (going away); ``closeCode`` and ``closeReason`` then say what the server sent. Any other
/// end throws ``FetchError/webSocketClosed(code:reason:request:)``: a server's close with another code, a connection
/// that dropped without a close frame (1006), or one that Fetch closed because the server broke RFC 6455 (1002),
/// sent text that is not UTF-8 (1007) or a message over the maximum size (1009). With a ``ReconnectPolicy``, a drop
/// (or a server's close with 1001, 1011, 1012, 1013 or 1014) opens a new connection after the policy's wait, and the
/// sequence goes on; a send made meanwhile waits for it. A reconnection that ends before it delivered a message
/// counts as a failed attempt (``ReconnectPolicy`` says when the count starts again).
///
/// Cancelling the task that iterates, or letting go of the connection, closes it with 1001 (going away). Pings from
/// the server are answered at once. Fetch reads ahead of the iteration only a little (over libcurl, at most 16
/// messages or 256 KiB beyond one message; `URLSessionWebSocketTask` keeps its own small buffer), so a consumer that
/// falls behind holds the server back instead of filling memory.
public final class WebSocket: AsyncSequence, Sendable {
    /// The server's messages.
    public typealias Element = WebSocketMessage

    /// The default ``RequestPerforming/webSocket(_:errorParser:maximumMessageSize:reconnectPolicy:scheduler:)``
    /// limit on one message: 16 MiB.
    public static let defaultMaximumMessageSize = 16 * 1024 * 1024

    private let request: any Request
    private let connect: @Sendable () async throws -> Opened
    private let reconnectPolicy: ReconnectPolicy?
    private let scheduler: any Scheduling
    private let state: Locked<State>

    /// A connection the pipeline opened: the `101` head and the channel.
    struct Opened: Sendable {
        let response: Response
        let channel: any WebSocketChannel
    }

    private struct State {
        var phase: Phase
        var response: Response
        var closeCode: Int?
        var closeReason: String?
        /// Whether ``close(code:reason:)`` was called (or the iterating task cancelled).
        var isClosedByClient = false
        /// Whether the current connection has delivered a message.
        var hasDelivered = false
        /// When the current connection opened, by the scheduler's clock.
        var openedAt: Date
        /// The failed attempts in a row that the current connection's end continues, if it ends as a failure (see
        /// ``endsAsFailure(_:now:)``): 0 for the first connection, one more than the failures before it for a
        /// reconnection.
        var failuresIfItFails = 0
    }

    /// How long a connection that delivers no message must stay open for its end not to count as a failed attempt:
    /// 60 s.
    static let settledInterval: TimeInterval = 60

    private enum Phase {
        case open(any WebSocketChannel)
        case reconnecting(Task<any WebSocketChannel, any Error>)
        /// The sequence is over: `nil` when it ended cleanly, else the error it threw.
        case ended((any Error)?)
    }

    init(
        request: any Request,
        opened: Opened,
        configuration: Configuration,
        scheduler: any Scheduling,
        connect: @escaping @Sendable () async throws -> Opened
    ) {
        self.request = request
        self.connect = connect
        self.reconnectPolicy = configuration.reconnectPolicy
        self.scheduler = scheduler
        self.state = Locked(State(phase: .open(opened.channel), response: opened.response, openedAt: scheduler.now))
    }

    deinit {
        let channel = state.withLock { state -> (any WebSocketChannel)? in
            switch state.phase {
            case .open(let channel) where !state.isClosedByClient:
                return channel
            case .reconnecting(let task):
                task.cancel()
                return nil
            case .open, .ended:
                return nil
            }
        }
        channel?.close(code: .goingAway, reason: "")
    }

    /// The server's answer to the latest opening handshake: its `101 Switching Protocols` head, with the header
    /// fields it sent (`Sec-WebSocket-Protocol`, for one).
    public var response: Response {
        state.withLock { $0.response }
    }

    /// The close code of the server's close frame, once it has arrived; `nil` before, or when the frame carried none.
    public var closeCode: CloseCode? {
        CloseCode(state.withLock { $0.closeCode })
    }

    /// The reason in the server's close frame, once it has arrived: `""` when it gave none.
    public var closeReason: String? {
        state.withLock { $0.closeReason }
    }

    /// Sends `message`.
    ///
    /// - Parameter message: The message, sent as one masked frame.
    /// - Throws: ``FetchError/webSocketClosed(code:reason:request:)`` when the connection has closed or failed (the
    ///   message was not sent); the error that ended a reconnection.
    public func send(_ message: WebSocketMessage) async throws {
        let channel = try await channelForSending()
        let request = request
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            channel.send(message) { error in
                if let error {
                    continuation.resume(throwing: Self.naming(error, request))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// Sends `text` as a text message.
    ///
    /// - Parameter text: The text.
    /// - Throws: As ``send(_:)-(WebSocketMessage)`` does.
    public func send(_ text: String) async throws {
        try await send(.text(text))
    }

    /// Sends `data` as a binary message.
    ///
    /// - Parameter data: The bytes.
    /// - Throws: As ``send(_:)-(WebSocketMessage)`` does.
    public func send(_ data: Data) async throws {
        try await send(.binary(data))
    }

    /// Sends `value` as JSON in a text message.
    ///
    /// The label keeps JSON apart from ``send(_:)-(String)`` and ``send(_:)-(Data)``: a `String` or `Data` passed
    /// here is encoded as a JSON string (quoted, or base64), never sent as it is.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The encoder. The default, ``DefaultEncoding/encoder``, writes ISO 8601 dates and sorted keys.
    /// - Throws: ``FetchError/encoding(_:request:)`` when the value cannot be encoded; otherwise as
    ///   ``send(_:)-(WebSocketMessage)`` does.
    public func send<Value: Encodable>(json value: Value, encoder: JSONEncoder = DefaultEncoding.encoder) async throws {
        let json: Data
        do {
            json = try encoder.encode(value)
        } catch {
            throw FetchError.encoding(error, request: request)
        }
        // JSONEncoder writes UTF-8.
        try await send(.text(String(decoding: json, as: UTF8.self)))
    }

    /// Sends a ping and waits for the server's pong.
    ///
    /// - Throws: The error that ended the connection before the pong arrived.
    public func ping() async throws {
        let channel = try await channelForSending()
        let request = request
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            channel.ping { error in
                if let error {
                    continuation.resume(throwing: Self.naming(error, request))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// Starts the closing handshake: sends a close frame, then waits (up to a few seconds) for the server's, and the
    /// sequence ends. Closing twice does nothing.
    ///
    /// - Parameters:
    ///   - code: The close code: ``CloseCode/normalClosure`` (1000) by default. A code RFC 6455 does not let an
    ///     endpoint send cannot be made (`CloseCode(rawValue: 1005)` is `nil`), so every code goes out as given.
    ///   - reason: Why, in at most 123 bytes of UTF-8 (longer is cut at a character). The default is none.
    public func close(code: CloseCode = .normalClosure, reason: String = "") {
        let action = state.withLock { state -> (() -> Void)? in
            guard !state.isClosedByClient else {
                return nil
            }
            state.isClosedByClient = true
            switch state.phase {
            case .open(let channel):
                return { channel.close(code: code, reason: reason) }
            case .reconnecting(let task):
                state.phase = .ended(nil)
                return { task.cancel() }
            case .ended:
                return nil
            }
        }
        action?()
    }

    /// Creates an iterator over the server's messages. Iterate the connection from one task at a time.
    ///
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(socket: self)
    }

    /// Reads the server's messages, one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: WebSocket

        /// The next message, or `nil` once the closing handshake is done.
        ///
        /// - Returns: The message, or `nil` at the end.
        /// - Throws: ``FetchError/webSocketClosed(code:reason:request:)`` for an abnormal end;
        ///   ``FetchError/cancelled(request:)`` when the iterating task is cancelled (which closes the connection
        ///   with 1001); ``FetchError/attemptsExhausted(attempts:lastError:request:)`` when reconnecting gave up.
        public mutating func next() async throws -> WebSocketMessage? {
            try await socket.receive()
        }
    }

    // MARK: - Receiving

    /// The next message, reconnecting as the policy says.
    private func receive() async throws -> WebSocketMessage? {
        while true {
            guard let channel = try await currentChannel() else {
                return nil
            }
            let event = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    channel.receive { continuation.resume(returning: $0) }
                }
            } onCancel: {
                self.close(code: .goingAway)
            }
            if Task.isCancelled {
                end(nil)
                throw FetchError.cancelled(request: request)
            }
            switch event {
            case .success(.message(let message)):
                state.withLock { $0.hasDelivered = true }
                return message
            case .success(.closed(let code, let reason)):
                let isClosedByClient = state.withLock { state in
                    state.closeCode = code
                    state.closeReason = reason
                    return state.isClosedByClient
                }
                if isClosedByClient || code == nil || code == 1000
                    || (code == CloseCode.goingAway.value && reconnectPolicy == nil)
                {
                    end(nil)
                    return nil
                }
                let error = FetchError.webSocketClosed(
                    code: code ?? 1005, reason: "the server closed the connection: \(reason.debugDescription)",
                    request: request)
                if let code, Self.reconnectableCodes.contains(code), reconnectPolicy != nil {
                    try await reconnect(after: error)
                    continue
                }
                end(error)
                throw error
            case .failure(let failure):
                let error = Self.naming(failure, request)
                if state.withLock({ $0.isClosedByClient }) {
                    end(nil)
                    return nil
                }
                if reconnectPolicy != nil, Self.isDrop(error) {
                    try await reconnect(after: error)
                    continue
                }
                end(error)
                throw error
            }
        }
    }

    /// The open channel: the current one, the one a reconnection is opening, or `nil` once the sequence has ended.
    private func currentChannel() async throws -> (any WebSocketChannel)? {
        switch state.withLock({ $0.phase }) {
        case .open(let channel):
            return channel
        case .reconnecting(let task):
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        case .ended:
            return nil
        }
    }

    /// The channel to send on, or the error that says why there is none.
    private func channelForSending() async throws -> any WebSocketChannel {
        if let channel = try await currentChannel() {
            return channel
        }
        let ending = state.withLock { state -> (any Error)? in
            if case .ended(let error) = state.phase {
                return error
            }
            return nil
        }
        throw ending
            ?? FetchError.webSocketClosed(
                code: closeCode?.value ?? 1000, reason: "the connection has closed; nothing was sent", request: request)
    }

    /// Ends the sequence, with `error` or cleanly; the first end stays.
    private func end(_ error: (any Error)?) {
        state.withLock { state in
            if case .ended = state.phase {
                return
            }
            state.phase = .ended(error)
        }
    }

    // MARK: - Reconnecting

    /// Opens a new connection after `error` ended the last one, as the policy says: the reconnection every waiting
    /// receive and send share.
    private func reconnect(after error: any Error) async throws {
        guard let policy = reconnectPolicy else {
            throw error
        }
        let task = state.withLock { state -> Task<any WebSocketChannel, any Error>? in
            switch state.phase {
            case .reconnecting(let task):
                return task
            case .open:
                let eventless = !state.hasDelivered
                let failures = Self.endsAsFailure(state, now: scheduler.now) ? state.failuresIfItFails : 0
                let task = Task { [self] in
                    try await reconnecting(with: policy, after: error, failures: failures, eventless: eventless)
                }
                state.phase = .reconnecting(task)
                return task
            case .ended:
                return nil
            }
        }
        guard let task else {
            return
        }
        do {
            _ = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            let failure = Self.naming(error, request)
            end(failure)
            throw failure
        }
    }

    /// Whether the end of the connection `state` describes counts as a failed attempt: it delivered no message and
    /// ended less than ``settledInterval`` after it opened, so a server that accepts the handshake and closes at once
    /// (with 1011, say) cannot be reconnected to forever.
    private static func endsAsFailure(_ state: State, now: Date) -> Bool {
        !state.hasDelivered && now.timeIntervalSince(state.openedAt) < settledInterval
    }

    /// Waits and opens, until a connection opens or the policy gives up.
    ///
    /// - Parameters:
    ///   - policy: The reconnect policy.
    ///   - error: What ended the last connection.
    ///   - failuresSoFar: The failed attempts in a row so far: 0, unless the connection that ended was a
    ///     reconnection that failed too (see ``endsAsFailure(_:now:)``).
    ///   - eventless: Whether the connection that ended delivered no message, which lengthens the first wait.
    /// - Returns: The new connection's channel.
    /// - Throws: ``FetchError/attemptsExhausted(attempts:lastError:request:)`` when the policy gives up; the error of
    ///   a handshake that was answered; ``FetchError/cancelled(request:)`` when the socket was closed meanwhile.
    private func reconnecting(
        with policy: ReconnectPolicy,
        after error: any Error,
        failures failuresSoFar: Int,
        eventless: Bool
    ) async throws -> any WebSocketChannel {
        var lastError = error
        var failures = failuresSoFar
        while true {
            if let limit = policy.maximumFailuresInARow, failures >= limit {
                throw failures == 0
                    ? lastError
                    : FetchError.attemptsExhausted(attempts: failures, lastError: lastError, request: request)
            }
            let delay = policy.delay(
                reconnectionTime: nil, failures: failures + (eventless ? 1 : 0), random: Double.random(in: 0...1))
            try await scheduler.wait(delay)
            do {
                let opened = try await connect()
                let isClosedByClient = state.withLock { state in
                    guard !state.isClosedByClient else {
                        return true
                    }
                    state.phase = .open(opened.channel)
                    state.response = opened.response
                    state.hasDelivered = false
                    state.openedAt = scheduler.now
                    state.failuresIfItFails = failures + 1
                    return false
                }
                if isClosedByClient {
                    opened.channel.close(code: .normalClosure, reason: "")
                    throw FetchError.cancelled(request: request)
                }
                return opened.channel
            } catch {
                // A server that answered the handshake with a status, or broke it, has answered: not retried.
                guard Self.isDrop(error) else {
                    throw error
                }
                lastError = error
                failures += 1
            }
        }
    }

    // MARK: - Codes

    /// The codes of a server's close after which a policy reconnects: going away, internal error, service restart,
    /// try again later, bad gateway.
    private static let reconnectableCodes: Set<Int> = [1001, 1011, 1012, 1013, 1014]

    /// Whether `error` is a connection lost or never made, which a reconnection may mend.
    private static func isDrop(_ error: any Error) -> Bool {
        switch error.fetchKind {
        case .webSocketClosed(let code, _, _):
            code == 1006
        case .transport, .timedOut:
            true
        default:
            false
        }
    }

    /// `error`, naming `request` when it is a ``FetchError`` that names none.
    private static func naming(_ error: any Error, _ request: any Request) -> any Error {
        (error as? FetchError)?.naming(request) ?? error
    }
}
