#if os(Linux)
    import CFetchCurl
    import Fetch
    import Foundation

    /// The limit row's other side: libcurl's multi interface driven directly on CFetchCurl, with no Fetch in the way.
    ///
    /// One thread loops on `curl_multi_poll`; other threads hand it URLs through a locked list and
    /// `curl_multi_wakeup`. Each body is collected by the write callback, decoded with `JSONDecoder` on the loop's
    /// thread, and the result handed to the callback queue: the least a program that uses libcurl for JSON does.
    ///
    /// With `parsingOffTheLoop`, each body is decoded on a concurrent dispatch queue instead, then handed to the
    /// callback queue: the design a library has that runs no parse (a user's `Decodable` included) on the thread
    /// every transfer shares, which is `Session`'s. The two loops side by side show what that hop costs by itself.
    final class BareCurlLoop: @unchecked Sendable {
        // @unchecked Sendable: `pending` is behind its own lock (`Locked`); `multi` is set once in `init`; everything
        // else belongs to the loop's thread.

        /// One request in flight: its body so far and whom to tell.
        private final class Exchange {
            var body = Data()
            let completion: @Sendable (Result<[Item], any Error>) -> Void

            init(completion: @escaping @Sendable (Result<[Item], any Error>) -> Void) {
                self.completion = completion
            }
        }

        private struct Pending {
            var requests: [(url: String, completion: @Sendable (Result<[Item], any Error>) -> Void)] = []
        }

        private let pending = Locked(Pending())
        private let multi: OpaquePointer
        private let queue: OperationQueue
        private let parsing: DispatchQueue?
        private var inFlight: [OpaquePointer: Exchange] = [:]
        private var idle: [OpaquePointer] = []

        /// Loads libcurl and starts the loop's thread, which runs as long as the process.
        init(queue: OperationQueue, parsingOffTheLoop: Bool = false) throws {
            var message = [CChar](repeating: 0, count: 512)
            let status = message.withUnsafeMutableBufferPointer {
                cfcurl_load("libcurl.so.4", $0.baseAddress, $0.count)
            }
            guard status == 0, let multi = cfcurl_multi_init() else {
                throw URLError(.cannotLoadFromNetwork)
            }
            _ = cfcurl_multi_setopt_long(multi, Int32(CFCURLMOPT_MAX_HOST_CONNECTIONS), 8)
            self.multi = multi
            self.queue = queue
            self.parsing =
                parsingOffTheLoop ? DispatchQueue(label: "fetch-bench.bare-curl.parsing", attributes: .concurrent) : nil
            let thread = Thread { [self] in run() }
            thread.name = "fetch-bench.bare-curl"
            thread.start()
        }

        /// Gets `url` and decodes its body as `[Item]`; `completion` runs on the callback queue.
        func get(_ url: URL, completion: @escaping @Sendable (Result<[Item], any Error>) -> Void) {
            let wasEmpty = pending.withLock { pending in
                pending.requests.append((url.absoluteString, completion))
                return pending.requests.count == 1
            }
            if wasEmpty {
                _ = cfcurl_multi_wakeup(multi)
            }
        }

        private func run() {
            let decoder = JSONDecoder()
            while true {
                let requests = pending.withLock { pending in
                    defer { pending.requests.removeAll(keepingCapacity: true) }
                    return pending.requests
                }
                for request in requests {
                    start(request.url, request.completion)
                }
                // Again after a turn that finished a transfer: libcurl 7.88 may drop the timer of a transfer it
                // moved off its queue in that turn (curl/curl#11937), as CurlLoopWorker explains.
                var finishedAny = true
                while finishedAny {
                    finishedAny = false
                    var running: Int32 = 0
                    _ = cfcurl_multi_perform(multi, &running)
                    var handle: OpaquePointer?
                    var code: Int32 = 0
                    while cfcurl_multi_next_done(multi, &handle, &code) == 1, let easy = handle,
                        let exchange = inFlight.removeValue(forKey: easy)
                    {
                        finishedAny = true
                        var status = 0
                        _ = cfcurl_easy_getinfo_long(easy, Int32(CFCURLINFO_RESPONSE_CODE), &status)
                        _ = cfcurl_multi_remove_handle(multi, easy)
                        idle.append(easy)
                        let completion = exchange.completion
                        guard code == 0, status == 200 else {
                            queue.addOperation { completion(.failure(URLError(.badServerResponse))) }
                            continue
                        }
                        let body = exchange.body
                        if let parsing {
                            parsing.async { [queue] in
                                let result = Result { try decoder.decode([Item].self, from: body) }
                                queue.addOperation { completion(result) }
                            }
                        } else {
                            let result = Result { try decoder.decode([Item].self, from: body) }
                            queue.addOperation { completion(result) }
                        }
                    }
                }
                _ = cfcurl_multi_poll(multi, 1_000)
            }
        }

        private func start(_ url: String, _ completion: @escaping @Sendable (Result<[Item], any Error>) -> Void) {
            guard let easy = idle.popLast() ?? cfcurl_easy_init() else {
                completion(.failure(URLError(.cannotLoadFromNetwork)))
                return
            }
            let exchange = Exchange(completion: completion)
            _ = cfcurl_easy_setopt_pointer(easy, Int32(CFCURLOPT_URL), url)
            _ = cfcurl_easy_setopt_long(easy, Int32(CFCURLOPT_NOSIGNAL), 1)
            _ = cfcurl_easy_setopt_pointer(
                easy, Int32(CFCURLOPT_WRITEDATA), UnsafeRawPointer(Unmanaged.passUnretained(exchange).toOpaque()))
            _ = cfcurl_easy_setopt_callback(easy, Int32(CFCURLOPT_WRITEFUNCTION)) { buffer, size, count, context in
                guard let context, let buffer else {
                    return 0
                }
                let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
                exchange.body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: size * count)
                return size * count
            }
            inFlight[easy] = exchange
            _ = cfcurl_multi_add_handle(multi, easy)
        }
    }
#endif
