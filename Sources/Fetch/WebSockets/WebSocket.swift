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
/// Each drop, wait and reopening is a ``FetchEvent`` for the observers of the opening call (``Middleware/observe(_:)``):
/// `webSocketDropped` or `webSocketClosed` when a connection ends, `reconnecting` before each wait, `webSocketOpened`
/// for the first connection and each reopening; ``Configuration/onReconnect`` runs after a reopening, before the
/// iteration delivers its first message.
///
/// A ping every ``Configuration/pingInterval`` (30 s) checks that the server is still there: a connection whose pong
/// does not come within ``Configuration/pongTimeout`` ends as a drop (1006). Cancelling a task that waits in `send`
/// or `ping` ends only its wait, as ``Configuration/sendTimeout`` does. Cancelling the task that iterates, or letting
/// go of the connection, closes it with 1001 (going away): the iteration is the connection's reader, and a message
/// that arrived for a reader that left could be neither delivered nor put back in order. Pings from the server are
/// answered at once. Fetch reads ahead of the iteration only a little (over libcurl, at most 16
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
    private let configuration: Configuration
    private let scheduler: any Scheduling
    private let observers: EventObservers
    private let state: Locked<State>

    /// A connection the pipeline opened: the `101` head and the channel.
    struct Opened: Sendable {
        let response: Response
        let channel: any WebSocketChannel
    }

    /// One connection of the socket: its channel, and its number (1 for the first, then one more per reopening).
    private struct Connection {
        let channel: any WebSocketChannel
        let number: Int
    }

    /// The client's close: its code and reason, and why it closed.
    private struct ClientClose {
        let code: CloseCode
        let reason: String
        let why: String
    }

    private struct State {
        var phase: Phase
        var response: Response
        var closeCode: Int?
        var closeReason: String?
        /// Whether ``close(code:reason:)`` was called (or the iterating task cancelled).
        var isClosedByClient: Bool { clientClose != nil }
        /// The client's close, once it has closed.
        var clientClose: ClientClose?
        /// The connections opened so far: the number of the latest.
        var connections = 1
        /// The latest connection whose end was reported to the observers.
        var endReported = 0
        /// The keepalive's next ping, or the deadline of its pong.
        var keepalive: (any CancellableCall)?
        /// The failure the keepalive found, with the number of the connection it ended.
        var keepaliveFailure: (connection: Int, error: any Error)?
        /// Whether ``Configuration/onReconnect`` is due before the next message is delivered.
        var isHookDue = false
        /// The sends and pings waiting, by a number of their own.
        var waits: [Int: Wait] = [:]
        var lastWait = 0

        /// Whether ``Configuration/onReconnect`` is due; it is not any more.
        mutating func takeHookDue() -> Bool {
            defer { isHookDue = false }
            return isHookDue
        }
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
        case open(Connection)
        case reconnecting(Task<Connection, any Error>)
        /// The sequence is over: `nil` when it ended cleanly, else the error it threw.
        case ended((any Error)?)
    }

    /// Takes over the connection `opened`, reports it open to `observers`, and starts the keepalive.
    init(
        request: any Request,
        opened: Opened,
        configuration: Configuration,
        scheduler: any Scheduling,
        observers: EventObservers = EventObservers(),
        connect: @escaping @Sendable () async throws -> Opened
    ) {
        self.request = request
        self.connect = connect
        self.reconnectPolicy = configuration.reconnectPolicy
        self.configuration = configuration
        self.scheduler = scheduler
        self.observers = observers
        let first = Connection(channel: opened.channel, number: 1)
        self.state = Locked(State(phase: .open(first), response: opened.response, openedAt: scheduler.now))
        report(.webSocketOpened(request, attempt: 1))
        scheduleKeepalive(after: first)
    }

    deinit {
        let channel = state.withLock { state -> (any WebSocketChannel)? in
            state.keepalive?.cancel()
            switch state.phase {
            case .open(let connection) where !state.isClosedByClient:
                return connection.channel
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
    /// Returns once the message is handed to the network. While a reconnection is under way, it waits for the new
    /// connection. Cancelling the task, or ``Configuration/sendTimeout`` passing, ends the wait but not the
    /// connection: the message may still go out.
    ///
    /// - Parameter message: The message, sent as one masked frame.
    /// - Throws: ``FetchError/webSocketClosed(code:reason:request:)`` when the connection has closed or failed, saying
    ///   who closed it, with which code, or that it dropped (the message was not sent); the error that ended a
    ///   reconnection; ``FetchError/cancelled(request:)`` when the task was cancelled;
    ///   ``FetchError/timedOut(request:seconds:)`` when ``Configuration/sendTimeout`` passed.
    public func send(_ message: WebSocketMessage) async throws {
        try await wait(for: "the message", unfinished: "the message was not sent") { channel, completion in
            channel.send(message, completion)
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
    /// The keepalive (``Configuration/pingInterval``) pings on its own; this is for a check of your own. Cancelling
    /// the task, or ``Configuration/sendTimeout`` passing, ends the wait but not the connection.
    ///
    /// - Throws: The error that ended the connection before the pong arrived; ``FetchError/cancelled(request:)``
    ///   when the task was cancelled; ``FetchError/timedOut(request:seconds:)`` when ``Configuration/sendTimeout``
    ///   passed.
    public func ping() async throws {
        try await wait(for: "the ping", unfinished: "no pong answered the ping") { channel, completion in
            channel.ping(completion)
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
        close(code: code, reason: reason, why: "the app called close")
    }

    /// Closes as ``close(code:reason:)`` does, for the reason `why` gives; ends every wait of a send or a ping.
    private func close(code: CloseCode, reason: String, why: String) {
        let (action, waits, connection, isReconnecting) = state.withLock {
            state -> ((() -> Void)?, [Wait], Int?, Bool) in
            guard !state.isClosedByClient else {
                return (nil, [], nil, false)
            }
            state.clientClose = ClientClose(code: code, reason: reason, why: why)
            state.keepalive?.cancel()
            state.keepalive = nil
            let waits = Array(state.waits.values)
            switch state.phase {
            case .open(let connection):
                return ({ connection.channel.close(code: code, reason: reason) }, waits, connection.number, false)
            case .reconnecting(let task):
                state.phase = .ended(nil)
                return ({ task.cancel() }, waits, nil, true)
            case .ended:
                return (nil, waits, nil, false)
            }
        }
        let closed = FetchEvent.webSocketClosed(request, code: code, reason: reason, byServer: false)
        if let connection {
            reportEnd(of: connection, closed)
        } else if isReconnecting {
            // The last connection's end was reported when it dropped; the socket's own end is the app's close.
            report(closed)
        }
        action?()
        for wait in waits {
            wait.finish(.failure(clientClosed(wait.what + " may not have gone out")))
        }
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
            guard let connection = try await currentConnection() else {
                return nil
            }
            if let hook = configuration.onReconnect, state.withLock({ $0.takeHookDue() }) {
                do {
                    try await hook(self)
                } catch {
                    // A drop meanwhile: the receive below reports it and reconnects, which runs the hook again.
                    if !(reconnectPolicy != nil && Self.isDroppedConnection(error)) {
                        close(code: .normalClosure, reason: "", why: "the reconnect hook threw")
                        let failure = Self.naming(error, request)
                        end(failure)
                        throw failure
                    }
                }
            }
            let channel = connection.channel
            let event = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    channel.receive { continuation.resume(returning: $0) }
                }
            } onCancel: {
                self.close(code: .goingAway, reason: "", why: "the task iterating it was cancelled")
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
                reportEnd(
                    of: connection.number,
                    .webSocketClosed(request, code: CloseCode(code), reason: reason, byServer: !isClosedByClient))
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
                let error = explained(failure, on: connection.number)
                if state.withLock({ $0.isClosedByClient }) {
                    end(nil)
                    return nil
                }
                reportEnd(of: connection.number, Self.ending(request, error))
                if reconnectPolicy != nil, Self.isDrop(error) {
                    try await reconnect(after: error)
                    continue
                }
                end(error)
                throw error
            }
        }
    }

    /// The event of a connection that `error` ended: closed by Fetch with the code of a violation, else dropped.
    private static func ending(_ request: any Request, _ error: any Error) -> FetchEvent {
        if case .webSocketClosed(let code, let reason, _) = error.fetchKind, code != 1006 {
            return .webSocketClosed(request, code: CloseCode(code), reason: reason, byServer: false)
        }
        return .webSocketDropped(request, error: error)
    }

    /// The open connection: the current one, the one a reconnection is opening, or `nil` once the sequence has
    /// ended.
    private func currentConnection() async throws -> Connection? {
        switch state.withLock({ $0.phase }) {
        case .open(let connection):
            return connection
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

    /// The connection to send `what` on, or the error that says why there is none.
    private func connectionForSending(_ what: String) async throws -> Connection {
        if let connection = try await currentConnection() {
            return connection
        }
        let (ending, isClosedByClient, code, reason) = state.withLock { state in
            if case .ended(let error) = state.phase {
                return (error, state.isClosedByClient, state.closeCode, state.closeReason)
            }
            return (nil, state.isClosedByClient, state.closeCode, state.closeReason)
        }
        if let ending {
            throw ending
        }
        if isClosedByClient {
            throw clientClosed(what + " was not sent")
        }
        // The sequence ended cleanly, so the server closed (1000, or 1001 without a reconnect policy).
        throw FetchError.webSocketClosed(
            code: code ?? 1005,
            reason: "the server closed the connection"
                + (code.map { " with \($0)" } ?? " with no code") + ", reason \((reason ?? "").debugDescription); "
                + what + " was not sent",
            request: request)
    }

    /// The error of a send or ping that the client's close stopped: who closed, with which code and reason, and why.
    private func clientClosed(_ outcome: String) -> FetchError {
        let close = state.withLock { $0.clientClose } ?? ClientClose(code: .normalClosure, reason: "", why: "")
        return FetchError.webSocketClosed(
            code: close.code.value,
            reason:
                "this client closed the connection with \(close.code.value), reason \(close.reason.debugDescription)"
                + (close.why.isEmpty ? "" : " (\(close.why))") + "; " + outcome,
            request: request)
    }

    /// `failure`, from the channel of connection `number`, as the error to throw: the keepalive's when it dropped the
    /// connection, the client's close when the client closed it, or the failure naming the request.
    private func explained(_ failure: any Error, on number: Int, what: String? = nil) -> any Error {
        let (keepaliveFailure, isClosedByClient) = state.withLock { state in
            (state.keepaliveFailure, state.isClosedByClient)
        }
        if let keepaliveFailure, keepaliveFailure.connection == number {
            return keepaliveFailure.error
        }
        if let what, isClosedByClient, Self.isEndOfConnection(failure) {
            return clientClosed(what + " was not sent")
        }
        return Self.naming(failure, request)
    }

    // MARK: - Waiting

    /// One send or ping waiting for its channel: finished once, by the channel, the timeout, the task's cancellation
    /// or ``close(code:reason:)``, whichever comes first.
    private final class Wait: Sendable {
        /// What waits: "the message", "the ping".
        let what: String
        private let state = Locked<
            (continuation: CheckedContinuation<Void, any Error>?, outcome: Result<Void, any Error>?)
        >(
            (nil, nil))

        init(_ what: String) {
            self.what = what
        }

        /// Resumes `continuation` when the wait is finished, at once if it is already.
        func start(_ continuation: CheckedContinuation<Void, any Error>) {
            let outcome = state.withLock { state -> Result<Void, any Error>? in
                if let outcome = state.outcome {
                    return outcome
                }
                state.continuation = continuation
                return nil
            }
            if let outcome {
                continuation.resume(with: outcome)
            }
        }

        /// Ends the wait with `outcome`, unless it has ended.
        func finish(_ outcome: Result<Void, any Error>) {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard state.outcome == nil else {
                    return nil
                }
                state.outcome = outcome
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(with: outcome)
        }
    }

    /// Starts `what` on the connection's channel with `start`, and waits until the channel completes it, the task is
    /// cancelled, ``Configuration/sendTimeout`` passes or the client closes.
    private func wait(
        for what: String,
        unfinished: String,
        _ start: (any WebSocketChannel, @escaping @Sendable ((any Error)?) -> Void) -> Void
    ) async throws {
        let connection = try await connectionForSending(what)
        let wait = Wait(what)
        let number = state.withLock { state in
            state.lastWait += 1
            state.waits[state.lastWait] = wait
            return state.lastWait
        }
        defer { state.withLock { _ = $0.waits.removeValue(forKey: number) } }
        let request = request
        let timer = Self.validInterval(configuration.sendTimeout).map { seconds in
            scheduler.scheduleTimeout(after: seconds) {
                wait.finish(
                    .failure(
                        FetchError.timedOut(request: request, seconds: seconds)
                            .leaving("\(unfinished) (the send timeout)")))
            }
        }
        defer { timer?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                wait.start(continuation)
                start(connection.channel) { [weak self] error in
                    guard let error else {
                        wait.finish(.success(()))
                        return
                    }
                    wait.finish(.failure(self?.explained(error, on: connection.number, what: what) ?? error))
                }
            }
        } onCancel: {
            wait.finish(.failure(FetchError.cancelled(request: request)))
        }
    }

    /// `interval` when it is a usable wait (finite and above zero), else `nil`.
    private static func validInterval(_ interval: TimeInterval?) -> TimeInterval? {
        guard let interval, interval.isFinite, interval > 0 else {
            return nil
        }
        return interval
    }

    // MARK: - Keepalive

    /// Schedules the keepalive's next ping on `connection`, one ``Configuration/pingInterval`` from now.
    private func scheduleKeepalive(after connection: Connection) {
        guard let interval = Self.validInterval(configuration.pingInterval) else {
            return
        }
        let number = connection.number
        let next = scheduler.scheduleTimeout(after: interval) { [weak self] in
            self?.keepalivePing(on: number)
        }
        keep(next, for: number)
    }

    /// Keeps `handle` as the keepalive of connection `number`, or cancels it when that connection is no longer open.
    private func keep(_ handle: any CancellableCall, for number: Int) {
        let isCurrent = state.withLock { state in
            guard case .open(let current) = state.phase, current.number == number, !state.isClosedByClient else {
                return false
            }
            state.keepalive = handle
            return true
        }
        if !isCurrent {
            handle.cancel()
        }
    }

    /// Pings connection `number`, if it is still the open one, and drops it if the pong does not come in time.
    private func keepalivePing(on number: Int) {
        let connection = state.withLock { state -> Connection? in
            guard case .open(let current) = state.phase, current.number == number, !state.isClosedByClient else {
                return nil
            }
            return current
        }
        guard let connection else {
            return
        }
        let timeout = Self.validInterval(configuration.pongTimeout) ?? 10
        let isSettled = Locked(false)
        let settle: @Sendable () -> Bool = {
            isSettled.withLock { settled in
                defer { settled = true }
                return !settled
            }
        }
        let deadline = scheduler.scheduleTimeout(after: timeout) { [weak self] in
            if settle() {
                self?.pongMissed(on: connection, timeout: timeout)
            }
        }
        keep(deadline, for: number)
        connection.channel.ping { [weak self] error in
            guard settle() else {
                return
            }
            deadline.cancel()
            if error == nil {
                self?.scheduleKeepalive(after: connection)
            }
            // Otherwise the connection is over, and the iteration reports how.
        }
    }

    /// The keepalive's pong did not come within `timeout`: the connection counts as dropped (1006).
    private func pongMissed(on connection: Connection, timeout: TimeInterval) {
        let error = FetchError.webSocketClosed(
            code: 1006,
            reason: "no pong came within \(ErrorText.seconds(timeout)) of a keepalive ping (pongTimeout), so the"
                + " connection counts as dropped",
            request: request)
        let isCurrent = state.withLock { state in
            guard case .open(let current) = state.phase, current.number == connection.number,
                !state.isClosedByClient
            else {
                return false
            }
            state.keepaliveFailure = (connection.number, error)
            state.keepalive = nil
            return true
        }
        guard isCurrent else {
            return
        }
        reportEnd(of: connection.number, .webSocketDropped(request, error: error))
        connection.channel.cancel()
    }

    // MARK: - Events

    /// Reports `event` to the observers of the opening call.
    private func report(_ event: FetchEvent) {
        guard !observers.isEmpty else {
            return
        }
        observers.report(event)
    }

    /// Reports the end of connection `number`, unless it was reported already.
    private func reportEnd(of number: Int, _ event: FetchEvent) {
        let isFirst = state.withLock { state in
            guard state.endReported < number else {
                return false
            }
            state.endReported = number
            return true
        }
        if isFirst {
            report(event)
        }
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
        let task = state.withLock { state -> Task<Connection, any Error>? in
            switch state.phase {
            case .reconnecting(let task):
                return task
            case .open:
                state.keepalive?.cancel()
                state.keepalive = nil
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
    ) async throws -> Connection {
        var lastError = error
        var failures = failuresSoFar
        var attempt = 0
        while true {
            if let limit = policy.maximumFailuresInARow, failures >= limit {
                throw failures == 0
                    ? lastError
                    : FetchError.attemptsExhausted(attempts: failures, lastError: lastError, request: request)
            }
            let delay = policy.delay(
                reconnectionTime: nil, failures: failures + (eventless ? 1 : 0), random: Double.random(in: 0...1))
            attempt += 1
            report(.reconnecting(request, attempt: attempt, delay: delay, error: lastError))
            try await scheduler.wait(delay)
            do {
                let opened = try await connect()
                let connection = state.withLock { state -> Connection? in
                    guard !state.isClosedByClient else {
                        return nil
                    }
                    state.connections += 1
                    let connection = Connection(channel: opened.channel, number: state.connections)
                    state.phase = .open(connection)
                    state.response = opened.response
                    state.hasDelivered = false
                    state.openedAt = scheduler.now
                    state.failuresIfItFails = failures + 1
                    state.isHookDue = configuration.onReconnect != nil
                    return connection
                }
                guard let connection else {
                    opened.channel.close(code: .normalClosure, reason: "")
                    throw FetchError.cancelled(request: request)
                }
                report(.webSocketOpened(request, attempt: connection.number))
                scheduleKeepalive(after: connection)
                return connection
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

    /// Whether `error` is a connection that dropped without a close frame (1006).
    private static func isDroppedConnection(_ error: any Error) -> Bool {
        if case .webSocketClosed(1006, _, _) = error.fetchKind {
            return true
        }
        return false
    }

    /// Whether `error` is the end of the connection, closed or cancelled, rather than a failure of its own.
    private static func isEndOfConnection(_ error: any Error) -> Bool {
        switch error.fetchKind {
        case .webSocketClosed, .cancelled:
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
