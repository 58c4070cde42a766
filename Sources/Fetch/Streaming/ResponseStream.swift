import Foundation

/// A response whose body is read as it arrives: the ``response`` head at once, then the body as an `AsyncSequence`
/// of `Data` chunks, in order, each handed on as soon as it arrives.
///
/// ```swift
/// let stream = try await session.stream(ExportOrders())
/// print(stream.response.status)
/// for try await line in stream.lines {
///     print(line)
/// }
/// ```
///
/// Iterate it once, from one task: the chunks are not kept. Cancelling the iterating task, or leaving the loop
/// early, cancels the HTTP request; so does dropping a stream that was never iterated.
///
/// When the consumer falls behind, at most a bounded number of bytes wait in memory (4 MiB
/// by default). On Apple platforms reading from the network then pauses; on Linux, where
/// neither transport can pause a transfer, the backlog waits on disk, in an unlinked temporary file that only the
/// body's length bounds (the transport's size limit does not apply to a stream, which may be endless): a consumer
/// that stops reading an endless stream for long should cancel it.
public struct ResponseStream: AsyncSequence, Sendable {
    /// The element: one chunk of the body, as it arrived.
    public typealias Element = Data

    /// The response head: status, headers and final URL. Its ``Response/data`` is `nil`: the body is the stream.
    public let response: Response

    /// How many bytes of an unread body wait in memory, by default, before reading from the network pauses:
    /// 4 MiB.
    package static let defaultBufferLimit = 4 * 1024 * 1024

    /// The longest line that ``lines`` and ``jsonLines(of:decoder:)`` read, and the longest line and the most data
    /// of one event that a Server-Sent Events stream reads, in bytes: 1 MiB.
    ///
    /// A longer one ends the sequence with ``FetchError/lineTooLong(limit:request:)`` and cancels the request, so
    /// that a server cannot grow a line without end in memory. Read ``ResponseStream`` chunk by chunk for longer
    /// lines.
    package static let maximumLineLength = 1024 * 1024

    private let source: Source
    /// Cancels the transfer when the last copy of this stream is dropped before anything iterated it.
    private let lifetime: Lifetime

    fileprivate enum Source: Sendable {
        case buffer(ChunkBuffer)
        case sequence(AsyncThrowingStream<Data, any Error>)
    }

    /// Creates a stream whose chunks come from an `AsyncThrowingStream`, for test doubles and custom transports.
    ///
    /// Ending `chunks` with an error makes the consumer's loop throw it after the chunks before it. When the
    /// consumer stops early, `chunks`' `onTermination` handler runs with `.cancelled`.
    ///
    /// - Parameters:
    ///   - response: The response head; its ``Response/data`` is ignored.
    ///   - chunks: The body's chunks.
    public init(response: Response, chunks: AsyncThrowingStream<Data, any Error>) {
        self.init(response: response, source: .sequence(chunks))
    }

    /// A stream whose chunks come from a ``ChunkBuffer`` that the network fills.
    package init(response: Response, buffer: ChunkBuffer) {
        self.init(response: response, source: .buffer(buffer))
    }

    /// A stream whose body is `response`'s whole ``Response/data``, as one chunk: the stream of a transport that
    /// does not stream, such as a double's.
    package init(whole response: Response) {
        let data = response.data
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            if let data, !data.isEmpty {
                continuation.yield(data)
            }
            continuation.finish()
        }
        self.init(response: response, chunks: chunks)
    }

    private init(response: Response, source: Source) {
        self.init(response: response, source: source, lifetime: Lifetime(source: source))
    }

    private init(response: Response, source: Source, lifetime: Lifetime) {
        self.response = response.data == nil && response.streamedBody == nil ? response : response.withBody(nil)
        self.source = source
        self.lifetime = lifetime
    }

    /// The same body under another head: the response as the middlewares handed it on, answering the caller's
    /// request.
    package func with(head: Response) -> ResponseStream {
        ResponseStream(response: head, source: source, lifetime: lifetime)
    }

    /// Reads up to `limit` bytes of the body, then cancels the rest: the body of an error response, for its error.
    /// A failure while reading ends it with what was read.
    package func collect(upTo limit: Int) async -> Data {
        var body = Data()
        var chunks = makeAsyncIterator()
        do {
            while body.count < limit, let chunk = try await chunks.next() {
                body.append(chunk.prefix(limit - body.count))
            }
        } catch {
            // The status is the error the caller gets; a body cut short is quoted as far as it came.
        }
        cancel()
        return body
    }

    /// Reads the body on `queue`'s threads rather than in a task, so that a consumer that writes it to a file (a
    /// download) keeps up with the network however busy Swift's concurrency pool is: `chunk` is called with each
    /// chunk in order, and returns whether to read on; `end` is called once, with the transfer's error or `nil`,
    /// when the body ends or `chunk` stops it.
    package func read(
        on queue: DispatchQueue,
        chunk: @escaping @Sendable (Data) -> Bool,
        end: @escaping @Sendable ((any Error)?) -> Void
    ) {
        switch source {
        case .sequence(let sequence):
            let lifetime = lifetime
            Task {
                do {
                    for try await data in sequence {
                        lifetime.noteRead(data.count)
                        guard chunk(data) else {
                            end(nil)
                            return
                        }
                    }
                    lifetime.end(nil)
                    end(nil)
                } catch {
                    lifetime.end(error)
                    end(error)
                }
            }
        case .buffer(let buffer):
            // The stream is kept until the body has been read: its last copy cancels the transfer when dropped.
            @Sendable func drain() {
                withExtendedLifetime(self) {
                    while true {
                        do {
                            guard
                                let ready = try buffer.poll(
                                    gathering: Self.readGathering, orWake: { queue.async(execute: drain) })
                            else {
                                return
                            }
                            guard let data = ready else {
                                lifetime.end(nil)
                                end(nil)
                                return
                            }
                            lifetime.noteRead(data.count)
                            guard chunk(data) else {
                                end(nil)
                                return
                            }
                        } catch {
                            lifetime.end(error)
                            end(error)
                            return
                        }
                    }
                }
            }
            queue.async(execute: drain)
        }
    }

    /// How many bytes of a burst ``read(on:chunk:end:)`` gathers before it goes on reading: 128 KiB, eight of
    /// libcurl's chunks, which saves seven thread hops of eight on a fast download (see
    /// ``ChunkBuffer/poll(gathering:orWake:)``).
    static let readGathering = 128 * 1024

    /// Creates the iterator; a stream is iterated once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: source, lifetime: lifetime)
    }

    /// Stops reading the body and cancels the HTTP request; a pending or later read throws
    /// ``FetchError/cancelled(request:)``.
    package func cancel() {
        lifetime.cancel()
    }

    /// Reads the next chunk of a ``ResponseStream``.
    public struct Iterator: AsyncIteratorProtocol {
        private let lifetime: Lifetime
        private let token: IterationToken
        private var base: Base

        private enum Base {
            case buffer(ChunkBuffer)
            case sequence(AsyncThrowingStream<Data, any Error>.Iterator)
        }

        fileprivate init(source: Source, lifetime: Lifetime) {
            self.lifetime = lifetime
            self.token = IterationToken(lifetime: lifetime)
            switch source {
            case .buffer(let buffer):
                base = .buffer(buffer)
            case .sequence(let sequence):
                base = .sequence(sequence.makeAsyncIterator())
            }
        }

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// - Throws: The transfer's error (a ``FetchError``), or ``FetchError/cancelled(request:)`` when the task is cancelled.
        public mutating func next() async throws -> Data? {
            let chunk: Data?
            do {
                switch base {
                case .buffer(let buffer):
                    chunk = try await buffer.next()
                case .sequence(var iterator):
                    chunk = try await iterator.next()
                    base = .sequence(iterator)
                    if chunk == nil, Task.isCancelled {
                        throw FetchError.cancelled()
                    }
                }
            } catch {
                lifetime.end(error)
                throw error
            }
            if let chunk {
                lifetime.noteRead(chunk.count)
            } else {
                lifetime.end(nil)
            }
            return chunk
        }
    }

    /// Cancels the transfer when no one can read it any more, and tells whoever asked how the body ended for its
    /// reader, once.
    fileprivate final class Lifetime: Sendable {
        fileprivate let source: Source
        private let reading = Locked(Reading())

        private struct Reading {
            var bytesRead = 0
            var ending: Ending?
            var onEnd: (@Sendable (Ending) -> Void)?
        }

        init(source: Source) {
            self.source = source
        }

        deinit {
            cancel()
        }

        func cancel() {
            switch source {
            case .buffer(let buffer):
                buffer.cancel()
            case .sequence:
                // An AsyncThrowingStream ends its producer when its iterator is dropped.
                break
            }
            end(FetchError.cancelled())
        }

        func noteRead(_ bytes: Int) {
            reading.withLock { $0.bytesRead &+= bytes }
        }

        /// The body ended for its reader: at its end (`error` is `nil`), or with `error`. Only the first call counts.
        func end(_ error: (any Error)?) {
            let metrics: AttemptMetrics?
            switch source {
            case .buffer(let buffer):
                metrics = buffer.finalMetrics
            case .sequence:
                metrics = nil
            }
            let ended = reading.withLock { reading -> (Ending, (@Sendable (Ending) -> Void)?)? in
                guard reading.ending == nil else {
                    return nil
                }
                let ending = Ending(error: error, bytesRead: reading.bytesRead, metrics: metrics)
                reading.ending = ending
                defer { reading.onEnd = nil }
                return (ending, reading.onEnd)
            }
            if let (ending, onEnd) = ended {
                onEnd?(ending)
            }
        }

        func whenEnded(_ handler: @escaping @Sendable (Ending) -> Void) {
            let ended = reading.withLock { reading -> Ending? in
                if reading.ending == nil {
                    reading.onEnd = handler
                }
                return reading.ending
            }
            if let ended {
                handler(ended)
            }
        }
    }

    /// How a body ended for its reader: read to its end, failed, or cancelled (the reader stopped, or dropped it).
    package struct Ending: Sendable {
        /// `nil` when the body was read to its end.
        package var error: (any Error)?
        /// The bytes the reader got.
        package var bytesRead: Int
        /// What the transport measured of the whole exchange, to its last byte, when it finished it.
        package var metrics: AttemptMetrics?
    }

    /// Calls `handler` once, when the body ends for its reader (at once when it has): read to its end, failed, or
    /// cancelled. Every copy of this stream shares it; a later call replaces the handler.
    package func whenEnded(_ handler: @escaping @Sendable (Ending) -> Void) {
        lifetime.whenEnded(handler)
    }

    /// Cancels the transfer when an iterator is dropped: the consumer left its loop.
    private final class IterationToken: Sendable {
        private let lifetime: Lifetime

        init(lifetime: Lifetime) {
            self.lifetime = lifetime
        }

        deinit {
            lifetime.cancel()
        }
    }
}

// MARK: - Lines

extension ResponseStream {
    /// The body as lines of UTF-8 text, ended by LF or CRLF, without their line endings. A last line without a line
    /// ending is included.
    ///
    /// A line longer than 1 MiB ends the sequence, after the lines before it, with
    /// ``FetchError/lineTooLong(limit:request:)``, and cancels the request.
    public var lines: Lines {
        Lines(stream: self)
    }

    /// The lines of a ``ResponseStream``'s body.
    public struct Lines: AsyncSequence, Sendable {
        /// The element: one line, without its line ending.
        public typealias Element = String

        let stream: ResponseStream

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator {
            Iterator(chunks: stream.makeAsyncIterator(), stream: stream, splitter: LineSplitter())
        }

        /// Reads the next line.
        public struct Iterator: AsyncIteratorProtocol {
            private var chunks: ResponseStream.Iterator
            /// The stream, to cancel once a line is too long, and whose request the error names.
            private let stream: ResponseStream
            private var splitter: LineSplitter
            private var ready: [String] = []
            private var readyIndex = 0
            private var isFinished = false
            /// The error to throw once the lines read before it have been handed on.
            private var failure: FetchError?

            init(chunks: ResponseStream.Iterator, stream: ResponseStream, splitter: LineSplitter) {
                self.chunks = chunks
                self.stream = stream
                self.splitter = splitter
            }

            /// The next line, or `nil` at the end of the body.
            ///
            /// - Throws: What ``ResponseStream/Iterator/next()`` throws, or ``FetchError/lineTooLong(limit:request:)``
            ///   for a line longer than 1 MiB.
            public mutating func next() async throws -> String? {
                while readyIndex == ready.count {
                    if let failure {
                        self.failure = nil
                        throw failure
                    }
                    guard !isFinished else {
                        return nil
                    }
                    ready = []
                    readyIndex = 0
                    if let chunk = try await chunks.next() {
                        do {
                            try splitter.split(chunk, into: &ready)
                        } catch {
                            isFinished = true
                            stream.cancel()
                            failure = error.naming(stream.response.originalRequest)
                        }
                    } else {
                        isFinished = true
                        if let last = splitter.finish() {
                            ready = [last]
                        }
                    }
                }
                defer { readyIndex += 1 }
                return ready[readyIndex]
            }
        }
    }
}

// MARK: - JSON Lines

extension ResponseStream {
    /// The body as JSON Lines (`application/jsonl`, `application/x-ndjson`): one JSON value of `type` per line.
    /// Blank lines are skipped.
    ///
    /// ```swift
    /// for try await order in try await session.stream(ExportOrders()).jsonLines(of: Order.self) {
    ///     print(order)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of each line's value.
    ///   - decoder: The decoder. The default is the one `Decodable` ``Parsable`` models use.
    /// - Returns: The values, in order. A line that does not decode ends the sequence with
    ///   ``FetchError/decoding(_:_:)``, whose response quotes the line.
    public func jsonLines<T: Decodable>(of type: T.Type, decoder: JSONDecoder = DefaultDecoding.decoder)
        -> AsyncThrowingCompactMapSequence<Lines, T>
    {
        lines.compactMap(JSONLineDecoder<T>(decoder: decoder, response: response).decode)
    }
}

/// Decodes one line of a JSON Lines body; a method rather than a closure, so that no metatype is captured.
private struct JSONLineDecoder<Value: Decodable> {
    let decoder: JSONDecoder
    let response: Response

    /// The line's value, or `nil` for a blank line.
    func decode(_ line: String) throws -> Value? {
        guard line.contains(where: { !$0.isWhitespace }) else {
            return nil
        }
        let data = Data(line.utf8)
        do {
            return try decoder.decode(Value.self, from: data)
        } catch let error as DecodingError {
            throw FetchError.decoding(error, response.withBody(data))
        }
    }
}

/// The body of a streamed response, carried by its head through the middlewares.
///
/// A class, because a ``Response`` cannot hold the ``ResponseStream`` that holds it; when the last head carrying it
/// is dropped (a retry that sends again, say), the stream is dropped and its transfer cancelled.
package final class StreamedBody: Sendable {
    package let stream: ResponseStream

    init(_ stream: ResponseStream) {
        self.stream = stream
    }
}
