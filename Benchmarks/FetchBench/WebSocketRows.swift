import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FetchBench {
    // MARK: - 8. WebSocket

    /// Fetch's `WebSocket` over one connection to fetch-bench's own WebSocket server, echo round trips and messages
    /// one way, 32 B and 16 KiB of text, on each transport, against the wire limit (`WebSocketWireLoop`), the
    /// Python `websockets` client, and (Apple platforms) a hand-written `URLSessionWebSocketTask`. Each pair
    /// alternates batches on its two connections (A B B A), many rounds, and the table gives the medians.
    static func webSocketRows(into table: inout Table, options: Options) {
        let server: WebSocketServer
        do {
            server = try WebSocketServer()
        } catch {
            table.value("WebSocket rows", "no server: \(error)")
            return
        }
        var sessions: [(name: String, session: Session)] = [
            ("URLSessionTransport", Session(transport: URLSessionTransport(configuration: serverConfiguration())))
        ]
        #if os(Linux)
            do {
                sessions.append(("CurlTransport", try Session(transport: CurlTransport())))
            } catch {
                table.value("WebSocket over CurlTransport", "libcurl unavailable: \(error)")
            }
        #endif
        #if !canImport(FoundationNetworking)
            let platform = URLSession(configuration: serverConfiguration())
        #endif

        for loop in [WebSocketLoop.echo, .flood] {
            for size in [32, 16 * 1024] {
                let url = server.url(loop.path(size: size))
                let count = batchSize(loop, size: size)
                let label = "\(loop.rawValue), \(size < 1024 ? "\(size) B" : "\(size / 1024) KiB") text (msg/s)"
                let wire: WebSocketWireLoop
                do {
                    wire = try WebSocketWireLoop(url: url, payload: [UInt8](repeating: 0x78, count: size))
                } catch {
                    table.value("Wire limit, \(label)", "not measured: \(error)")
                    continue
                }
                let wireBatch: WebSocketBatch = { count in
                    let start = now()
                    return (loop == .echo ? wire.echo(count) : wire.flood(count)) ? now() - start : nil
                }
                if loop == .echo, size == 32 {
                    controlRow(into: &table, options: options, url: url, label: label, count: count, wireBatch)
                }

                var python: PythonWebSocketClient?
                do {
                    python = try PythonWebSocketClient(url: url, size: size)
                } catch {
                    table.value("Python websockets, \(label)", "not measured: \(error)")
                }
                if let python {
                    webSocketRow(
                        into: &table, "Python websockets vs wire limit, \(label)", options: options, count: count,
                        python.batch(loop), wireBatch, target: nil, pythonSides: (true, false))
                }

                for (name, session) in sessions {
                    let fetch: FetchWebSocketSide
                    do {
                        fetch = try FetchWebSocketSide(session: session, url: url)
                    } catch {
                        // The first sentence is enough in a table cell: what failed, for which URL.
                        let reason = String(describing: error).prefix { $0 != ";" }
                        table.value("WebSocket(\(name)), \(label)", "not measured: \(reason)")
                        continue
                    }
                    let fetchBatch = fetch.batch(loop, size: size)
                    webSocketRow(
                        into: &table, "WebSocket(\(name)) vs wire limit, \(label)", options: options, count: count,
                        fetchBatch, wireBatch, target: wireTarget(loop, size: size))
                    if let python {
                        webSocketRow(
                            into: &table, "WebSocket(\(name)) vs Python websockets, \(label)", options: options,
                            count: count, fetchBatch, python.batch(loop), target: .atLeast(1.0),
                            pythonSides: (false, true))
                    }
                    #if !canImport(FoundationNetworking)
                        let task = URLSessionWebSocketSide(session: platform, url: url)
                        webSocketRow(
                            into: &table, "WebSocket(\(name)) vs URLSessionWebSocketTask, \(label)",
                            options: options, count: count, fetchBatch, task.batch(loop, size: size), target: nil)
                        task.close()
                    #endif
                    fetch.close()
                }
            }
        }
    }

    /// A/A control: the wire loop against itself on a second connection, which shows what this machine resolves.
    static func controlRow(
        into table: inout Table, options: Options, url: URL, label: String, count: Int, _ wire: WebSocketBatch
    ) {
        let measure = "Control: wire limit vs itself, \(label)"
        let other: WebSocketWireLoop
        do {
            other = try WebSocketWireLoop(url: url, payload: [UInt8](repeating: 0x78, count: 32))
        } catch {
            table.value(measure, "not measured: \(error)")
            return
        }
        let otherBatch: WebSocketBatch = { count in
            let start = now()
            return other.echo(count) ? now() - start : nil
        }
        webSocketRow(
            into: &table, measure, options: options, count: count, wire, otherBatch, target: nil, isControl: true)
    }

    /// What Fetch must reach of the wire limit, set from measured runs (Benchmarks/README.md): a round trip crosses
    /// from the caller's task to the connection's thread and back, which the one-thread wire loop never does; one way
    /// at 32 B the wire loop reads hundreds of messages per `recv`, so that row is reported, not judged.
    static func wireTarget(_ loop: WebSocketLoop, size: Int) -> Table.Target? {
        switch loop {
        case .echo: .atLeast(0.30)
        case .flood: size < 1024 ? nil : .atLeast(0.20)
        }
    }

    /// Messages per batch: short batches, so that a burst of load from elsewhere on the machine lands on both sides
    /// (batches of 200 round trips left the control row at 0.27x on a loaded machine); a flood is long enough to
    /// fill the socket buffers several times.
    static func batchSize(_ loop: WebSocketLoop, size: Int) -> Int {
        switch loop {
        case .echo: 10
        case .flood: size < 1024 ? 400 : 100
        }
    }

    /// Batches of each side per round.
    static let turnsPerSide = 10

    /// One row: `a` against `b`, alternating batches of `count` messages (A B B A …, ``turnsPerSide`` each per
    /// round), a warm-up batch of each first; a row that says so when a side failed.
    static func webSocketRow(
        into table: inout Table,
        _ measure: String,
        options: Options,
        count: Int,
        _ a: WebSocketBatch,
        _ b: WebSocketBatch,
        target: Table.Target?,
        isControl: Bool = false,
        pythonSides: (a: Bool, b: Bool) = (false, false)
    ) {
        guard a(count * turnsPerSide) != nil, b(count * turnsPerSide) != nil else {
            table.value(measure, "failed (see above)")
            return
        }
        var failed = false
        let comparison = paired(rounds: options.rounds) {
            var times = (a: UInt64(0), b: UInt64(0))
            var cpu = (a: 0.0, b: 0.0)
            for index in 0..<(2 * turnsPerSide) where !failed {
                let isA = Alternation.isFirst(index)
                let cpuBefore = cpuMicroseconds()
                guard let elapsed = (isA ? a : b)(count) else {
                    failed = true
                    break
                }
                let spent = cpuMicroseconds() - cpuBefore
                if isA {
                    times.a += elapsed
                    cpu.a += spent
                } else {
                    times.b += elapsed
                    cpu.b += spent
                }
            }
            let messages = Double(turnsPerSide * count)
            // The Python client's own CPU time is its process's, not counted here.
            return SideResults(
                a: messages / (Double(max(times.a, 1)) / 1e9), b: messages / (Double(max(times.b, 1)) / 1e9),
                cpuA: pythonSides.a ? nil : cpu.a / messages, cpuB: pythonSides.b ? nil : cpu.b / messages)
        }
        guard !failed else {
            table.value(measure, "failed (see above)")
            return
        }
        if isControl {
            table.value(
                measure, String(format: "%.0f", comparison.a), baseline: String(format: "%.0f", comparison.b),
                ratio: String(format: "%.3fx", comparison.ratio), cpu: Table.cpu(comparison.cpuA, comparison.cpuB))
        } else {
            table.ratio(measure, comparison, unit: "", target: target)
        }
    }
}
