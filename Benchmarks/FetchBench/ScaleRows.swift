#if os(Linux)
    import Fetch
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension FetchBench {
        // MARK: - 8. Many calls at once (Linux)

        /// Each transport beside the limit, a bare libcurl multi loop making the same calls with the same decode and
        /// the same connection cap (8 per host), 1, 8, 64 and 256 calls at a time, wave by wave in one process: the
        /// ratio of the median waves' rates, each side's worst wave beside its median, and the CPU time per call.
        static func scaleRows(into table: inout Table, options: Options, server: HTTPServer?) {
            guard let server else {
                return
            }
            let contenders = Contenders(configuration: serverConfiguration())
            let curlSession: Session
            let bare: BareCurlLoop
            let bareParsingOff: BareCurlLoop
            do {
                curlSession = try Session(
                    transport: CurlTransport(options: CurlTransport.Options(maximumConnectionsPerHost: 8)),
                    callbackQueue: contenders.queue)
                bare = try BareCurlLoop(queue: contenders.queue)
                bareParsingOff = try BareCurlLoop(queue: contenders.queue, parsingOffTheLoop: true)
            } catch {
                table.value("Many calls at once", "libcurl unavailable: \(error)")
                return
            }
            let url = server.url.deletingLastPathComponent().appendingPathComponent("item-1")
            let request = Get(url: url)
            let curl: Side = { curlSession.perform(request, completion: $0) }
            let urlSession: Side = { contenders.session.perform(request, completion: $0) }
            let handWritten: Side = { contenders.handWritten(url, completion: $0) }
            let bareSide: Side = { bare.get(url, completion: $0) }
            let bareParsingOffSide: Side = { bareParsingOff.get(url, completion: $0) }
            let name = server.name
            // Warm-up: every side's connections open.
            for side in [curl, urlSession, handWritten, bareSide, bareParsingOffSide] {
                _ = WaveStatistics.measure(waves: 2, concurrency: 64, side, side)
            }
            for concurrency in [1, 8, 64, 256] {
                // About the same number of calls per row at every concurrency (fewer with --quick).
                let waves = max(options.quick ? 4 : 10, (options.quick ? 256 : 4_096) / concurrency)
                let rounds = options.quick ? 1 : 3
                let curlRound = (0..<rounds).map { _ in
                    WaveStatistics.measure(waves: waves, concurrency: concurrency, curl, bareSide)
                }
                table.waves(
                    "Session(.curl) vs bare libcurl multi loop + JSONDecoder, \(concurrency) at a time, \(name)",
                    curlRound, target: .atLeast(0.9))
                // The controls that split that ratio: the loop's own parse moved off its thread (Session's design),
                // against the loop as it is; and Session against that loop.
                let hopRound = (0..<rounds).map { _ in
                    WaveStatistics.measure(waves: waves, concurrency: concurrency, bareParsingOffSide, bareSide)
                }
                table.waves(
                    "  control: bare loop parsing off its thread vs as it is, \(concurrency) at a time", hopRound,
                    target: nil)
                let designRound = (0..<rounds).map { _ in
                    WaveStatistics.measure(waves: waves, concurrency: concurrency, curl, bareParsingOffSide)
                }
                table.waves(
                    "  Session(.curl) vs bare loop parsing off its thread, \(concurrency) at a time", designRound,
                    target: nil)
                let urlSessionRound = (0..<rounds).map { _ in
                    WaveStatistics.measure(waves: waves, concurrency: concurrency, urlSession, bareSide)
                }
                table.waves(
                    "URLSessionTransport(configuration:) vs bare libcurl multi loop + JSONDecoder, \(concurrency) at a time, \(name)",
                    urlSessionRound, target: nil)
                let handWrittenRound = (0..<rounds).map { _ in
                    WaveStatistics.measure(waves: waves, concurrency: concurrency, urlSession, handWritten)
                }
                table.waves(
                    "URLSessionTransport(configuration:) vs URLSession dataTask + JSONDecoder + hop, \(concurrency) at a time, \(name)",
                    handWrittenRound, target: .atLeast(0.97))
            }
        }
    }

    /// Two sides sending `concurrency` calls at a time, wave by wave (A B B A …): each wave's time and the CPU time
    /// the process spent in it (`getrusage`).
    struct WaveStatistics {
        /// One side's waves: their times in nanoseconds, and the CPU time of all of them in microseconds.
        struct Tally {
            var waves: [Double] = []
            var cpuMicroseconds = 0.0
            var calls = 0

            var medianWave: Double { median(waves) }
            var worstWave: Double { waves.max() ?? .nan }
            /// Calls per second over the median wave.
            var rate: Double { Double(calls / max(1, waves.count)) / (medianWave / 1e9) }
            var cpuPerCall: Double { cpuMicroseconds / Double(max(1, calls)) }
        }

        var a = Tally()
        var b = Tally()
        var failures = 0

        static func measure(
            waves: Int,
            concurrency: Int,
            _ a: @escaping Side,
            _ b: @escaping Side
        ) -> WaveStatistics {
            var statistics = WaveStatistics()
            for index in 0..<(2 * waves) {
                let isA = Alternation.isFirst(index)
                let side = isA ? a : b
                let wave = DispatchGroup()
                let failures = Locked(0)
                let start = Stamp.now()
                for _ in 0..<concurrency {
                    wave.enter()
                    side { result in
                        if result.isFailure {
                            failures.withLock { $0 += 1 }
                        }
                        wave.leave()
                    }
                }
                wave.wait()
                let (nanoseconds, spent) = start.elapsed()
                let elapsed = Double(nanoseconds)
                statistics.failures += failures.withLock { $0 }
                if isA {
                    statistics.a.waves.append(elapsed)
                    statistics.a.cpuMicroseconds += spent
                    statistics.a.calls += concurrency
                } else {
                    statistics.b.waves.append(elapsed)
                    statistics.b.cpuMicroseconds += spent
                    statistics.b.calls += concurrency
                }
            }
            if statistics.failures > 0 {
                print("fetch-bench: \(statistics.failures) of \(2 * waves * concurrency) calls failed")
            }
            return statistics
        }
    }

    extension Table {
        /// A row of rounds of waves: the median over the rounds of the ratio of the sides' rates (calls per second of
        /// the median wave), each side's median and worst wave, and each side's CPU time per call.
        mutating func waves(_ measure: String, _ rounds: [WaveStatistics], target: Target?) {
            let ratio = median(rounds.map { $0.a.rate / $0.b.rate })
            func describe(_ side: KeyPath<WaveStatistics, WaveStatistics.Tally>) -> String {
                let medianWave = median(rounds.map { $0[keyPath: side].medianWave }) / 1e6
                let worstWave = (rounds.map { $0[keyPath: side].worstWave }.max() ?? .nan) / 1e6
                let rate = median(rounds.map { $0[keyPath: side].rate })
                return String(format: "%.0f/s, wave %.1f ms (worst %.1f ms)", rate, medianWave, worstWave)
            }
            func cpu(_ side: KeyPath<WaveStatistics, WaveStatistics.Tally>) -> Double {
                median(rounds.map { $0[keyPath: side].cpuPerCall })
            }
            let (text, passed): (String, Bool?) =
                switch target {
                case .atLeast(let bound): (String(format: ">= %.2fx", bound), ratio >= bound)
                case .atMost(let bound): (String(format: "<= %.2fx", bound), ratio <= bound)
                case nil: ("", nil)
                }
            value(
                measure, describe(\.a), baseline: describe(\.b), ratio: String(format: "%.3fx", ratio), target: text,
                passed: passed, cpu: Table.cpu(cpu(\.a), cpu(\.b)))
        }
    }
#endif
