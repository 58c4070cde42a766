#if os(Linux)
    import Fetch
    import Foundation
    import SpawnSupport

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension FetchBench {
        // MARK: - 7. The libcurl transport (Linux)

        /// `Session(transport: CurlTransport())` against what a Linux user would otherwise run: hand-written `URLSession` code
        /// (callbacks and `async`), a bare libcurl multi loop in this process (the limit: no Fetch, the same decode),
        /// and the curl command-line tool. Every side decodes the same `[Item]` JSON except the CLI, which only reads
        /// the bodies.
        static func curlRows(into table: inout Table, options: Options, server: HTTPServer?) {
            guard let server else {
                return
            }
            let contenders = Contenders(configuration: serverConfiguration())
            let curlSession: Session
            let bare: BareCurlLoop
            do {
                curlSession = try Session(
                    transport: CurlTransport(options: CurlTransport.Options(maximumConnectionsPerHost: 8)),
                    callbackQueue: contenders.queue)
                bare = try BareCurlLoop(queue: contenders.queue)
            } catch {
                table.value("Session(transport: try CurlTransport())", "libcurl unavailable: \(error)")
                return
            }
            // The payload: a few dozen bytes of JSON (here one item, 75 bytes), beside the same server's 1 KB.
            let url = server.url.deletingLastPathComponent().appendingPathComponent("item-1")
            let request = Get(url: url)
            let curl: Side = { curlSession.perform(request, completion: $0) }
            let curlAsync: AsyncSide = { try await curlSession.perform(request) }
            let handWritten: Side = { contenders.handWritten(url, completion: $0) }
            let platform: AsyncSide = { try await contenders.platformAsync(url) }
            let bareSide: Side = { bare.get(url, completion: $0) }
            _ = alternatingWaves(waves: 6, concurrency: 8, curl, handWritten)
            _ = alternatingWaves(waves: 6, concurrency: 8, bareSide, handWritten)

            let name = server.name
            // Turns of 10 requests or waves: libcurl against corelibs' URLSession (see `Alternation`).
            let block = 10
            let sequential = paired(rounds: options.rounds) {
                alternatingThroughput(pairs: options.requests, block: block, curl, handWritten)
            }
            table.ratio(
                "Session(.curl) callback vs URLSession dataTask + JSONDecoder + hop, sequential, \(name) (req/s)",
                sequential, unit: "", target: .atLeast(4))
            let sequentialAsync = paired(rounds: options.rounds) {
                alternatingAsyncThroughput(pairs: options.requests, block: block, curlAsync, platform)
            }
            table.ratio(
                "Session(.curl) async vs URLSession.data(for:) + JSONDecoder, sequential, \(name) (req/s)",
                sequentialAsync, unit: "", target: .atLeast(4))
            let waves = options.requests / 4
            let concurrent = paired(rounds: options.rounds) {
                alternatingWaves(waves: waves, concurrency: 8, block: block, curl, handWritten)
            }
            table.ratio(
                "Session(.curl) callback vs URLSession dataTask + JSONDecoder + hop, 8 concurrent, \(name) (req/s)",
                concurrent, unit: "", target: .atLeast(5))
            let concurrentAsync = paired(rounds: options.rounds) {
                alternatingAsyncWaves(waves: waves, concurrency: 8, block: block, curlAsync, platform)
            }
            table.ratio(
                "Session(.curl) async vs URLSession.data(for:) + JSONDecoder, 8 concurrent, \(name) (req/s)",
                concurrentAsync, unit: "", target: .atLeast(5))

            // The limit: the same requests and decode on a bare multi loop, request by request and wave by wave.
            let limit = paired(rounds: options.rounds) {
                alternatingThroughput(pairs: options.requests * 4, block: block, curl, bareSide)
            }
            table.ratio(
                "Session(.curl) callback vs bare libcurl multi loop + JSONDecoder, sequential, \(name) (req/s)", limit,
                unit: "", target: .atLeast(0.85))
            let concurrentLimit = paired(rounds: options.rounds) {
                alternatingWaves(waves: waves * 4, concurrency: 8, block: block, curl, bareSide)
            }
            table.ratio(
                "Session(.curl) callback vs bare libcurl multi loop + JSONDecoder, 8 concurrent, \(name) (req/s)",
                concurrentLimit, unit: "", target: .atLeast(0.85))

            wireRows(into: &table, options: options, url: url, name: name, handWritten: handWritten)

            if let cli = CurlCommandLine(url: url, count: options.quick ? 300 : 2_000) {
                // The CLI decodes nothing: here the session only reads the body too (as `Data`).
                let bodyOnly: Side = { completion in
                    curlSession.perform(request) { (result: Result<Data, any Error>) in
                        completion(result.map { _ in [] })
                    }
                }
                let versusCLI = paired(rounds: options.quick ? 3 : 11) {
                    SideResults(Measured(calls: cli.count) { sequentialRate(requests: cli.count, bodyOnly) }, cli.run())
                }
                table.ratio(
                    "Session(.curl) callback, Data, vs curl CLI, \(cli.count) URLs in one process, sequential, \(name) (req/s)",
                    versusCLI, unit: "", target: .atLeast(1.0))
                let decoding = paired(rounds: options.quick ? 3 : 11) {
                    SideResults(Measured(calls: cli.count) { sequentialRate(requests: cli.count, curl) }, cli.run())
                }
                table.ratio(
                    "Session(.curl) callback + JSONDecoder vs curl CLI (no decode), sequential, \(name) (req/s)",
                    decoding,
                    unit: "", target: nil)
            } else {
                table.value("curl CLI", "not on the PATH")
            }

            let wide = paired(rounds: max(3, options.rounds / 3)) {
                alternatingAsyncWaves(
                    waves: max(4, options.requests / 16), concurrency: 64, block: 2, curlAsync, platform)
            }
            table.ratio(
                "Session(.curl) async vs URLSession.data(for:) + JSONDecoder, 64 concurrent, \(name) (req/s)", wide,
                unit: "", target: nil)
        }

        /// The wire limit against the hand-written `URLSession` side, round by round: the highest ratio any client
        /// reaches in this run, one request at a time and 8 at a time.
        static func wireRows(
            into table: inout Table,
            options: Options,
            url: URL,
            name: String,
            handWritten: @escaping Side
        ) {
            let wire: WireLoop
            do {
                wire = try WireLoop(url: url, connections: 8)
            } catch {
                table.value("Wire limit", "not measured: \(error)")
                return
            }
            let sequential = paired(rounds: options.rounds) {
                SideResults(
                    Measured(calls: options.requests) { wire.sequentialRate(requests: options.requests) },
                    Measured(calls: options.requests) { sequentialRate(requests: options.requests, handWritten) })
            }
            table.ratio(
                "Wire limit (raw socket loop, no decode) vs URLSession dataTask + JSONDecoder + hop, sequential, \(name) (req/s)",
                sequential, unit: "", target: nil)
            let waves = options.requests / 4
            let concurrent = paired(rounds: options.rounds) {
                SideResults(
                    Measured(calls: waves * 8) { wire.waveRate(waves: waves) },
                    Measured(calls: waves * 8) { waveRate(waves: waves, concurrency: 8, handWritten) })
            }
            table.ratio(
                "Wire limit (8 raw sockets, one thread, no decode) vs URLSession dataTask + JSONDecoder + hop, 8 concurrent, \(name) (req/s)",
                concurrent, unit: "", target: nil)
        }

        /// Requests per second of `side` alone, in `waves` waves of `concurrency` requests.
        static func waveRate(waves: Int, concurrency: Int, _ side: @escaping Side) -> Double {
            let start = now()
            for _ in 0..<waves {
                let wave = DispatchGroup()
                for _ in 0..<concurrency {
                    wave.enter()
                    side { _ in wave.leave() }
                }
                wave.wait()
            }
            return Double(waves * concurrency) / (Double(now() - start) / 1e9)
        }

        /// Requests per second of `side` alone, `requests` of them one after the other.
        static func sequentialRate(requests: Int, _ side: @escaping Side) -> Double {
            let done = DispatchSemaphore(value: 0)
            @Sendable func call(_ index: Int) {
                guard index < requests else {
                    done.signal()
                    return
                }
                side { _ in call(index + 1) }
            }
            let start = now()
            call(0)
            done.wait()
            return Double(requests) / (Double(now() - start) / 1e9)
        }
    }

    /// The curl command-line tool fetching one URL `count` times in one process, over one kept-alive connection.
    struct CurlCommandLine {
        let executable: URL
        let url: URL
        let count: Int

        init?(url: URL, count: Int) {
            let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            guard
                let directory = path.first(where: {
                    FileManager.default.isExecutableFile(atPath: "\($0)/curl")
                })
            else {
                return nil
            }
            self.executable = URL(fileURLWithPath: "\(directory)/curl")
            self.url = url
            self.count = count
        }

        /// Requests per second of one run, the process's start and exit included (0 when it fails), and the CPU time
        /// per request of the process, its start included.
        func run() -> Measured {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["--silent", "--fail"] + Array(repeating: url.absoluteString, count: count)
            process.standardOutput = FileHandle.nullDevice
            let start = now()
            let cpu = cpuMicroseconds(children: true)
            do {
                try Spawn.run(process)
            } catch {
                print("fetch-bench: curl did not start: \(error)")
                return Measured(value: 0, cpuPerCall: .nan)
            }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                print("fetch-bench: curl exited with status \(process.terminationStatus)")
                return Measured(value: 0, cpuPerCall: .nan)
            }
            return Measured(
                value: Double(count) / (Double(now() - start) / 1e9),
                cpuPerCall: (cpuMicroseconds(children: true) - cpu) / Double(count))
        }
    }
#endif
