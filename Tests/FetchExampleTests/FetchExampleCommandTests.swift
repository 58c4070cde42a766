import FetchTesting
import Foundation
import Testing

@testable import FetchExample

/// The built `fetch-example`, run as a user runs it: against the embedded backend, against the demo server over
/// HTTP, and with wrong flags.
@Suite struct FetchExampleCommandTests {
    /// Lines every successful run prints, in order, whichever backend answers.
    static let expectedLines = [
        "Callbacks: a DashboardViewModel tells its delegate, on the callback queue",
        "  ✓ log in as ada: user 5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01",
        "  ✓ 3 announcements: latest “Welcome, Linus!”",
        "  ✓ 4 employees: Ada Lovelace, Grace Hopper, Alan Turing, Linus Torvalds",
        "  ✓ 2 events: next “All-hands meeting”",
        "  ✓ 4 products: Laptop stand 49.90, USB-C dock 189.00, Standing desk 649.50, Noise-cancelling headphones 299.99",
        "  ✓ 2 purchases: PO-1001 756.00, PO-1002 349.89",
        "  ✓ 7 delegate calls, all on the callback queue",
        "async/await",
        "  ✓ user 5f0c6f64-3b8e-4c1a-9d7e-2a1b4c6d8e01: Ada Lovelace, Principal Engineer",
        "  ✓ place an order of 3 × Laptop stand (149.70): accepted as PO-1003",
        "  ✓ place an order of 8 × Standing desk (5196.00): refused before sending: the order's total 5196.00 is"
            + " above the maxPOExpense limit of 5000.00",
        "  ✓ purchases: now 3, the last PO-1003",
        "  ✓ live notification #1 (purchase): PO-1002 shipped",
        "  ✓ live notification #2 (announcement): Holiday party: RSVP by 10 December",
        "  ✓ live notification #3 (reminder): All-hands meeting in 15 minutes",
        "  ✓ live notifications (Server-Sent Events): 3, each as it arrived; then 204 to the reconnection with"
            + " Last-Event-ID 3",
        "  ✓ log in with a wrong password: the server answered 401 (unauthorized): wrong username or password",
        "  ✓ log out; then GET api/employees: the server answered 401 (unauthorized): this call needs Authorization:"
            + " Bearer <token>; log in first (POST api/users/login)",
        "Done: all 17 steps went as expected.",
    ]

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    /// The live desk's lines when its WebSocket opens (a transport that opens WebSockets): five steps, and the
    /// note of the reconnection after the desk's restart dropped the first connection.
    static let liveDeskLines = [
        "  ✓ live desk update (event): All-hands meeting, Main hall",
        "  ✓ live desk update (event): Holiday party, Rooftop",
        "  – live desk dropped; reconnecting in 0.2 s (attempt 1)",
        "  ✓ live desk reopened (connection 2); posted again",
        "  ✓ live desk echo: Ada is in the office today",
        "  ✓ live desk (WebSocket): 2 updates and the echo, across 1 reconnection; then the server closed with 1000:"
            + " the desk is closed",
    ]

    /// The start of the one line the flow writes when the desk does not open, followed by why; not a step.
    static let liveDeskNotOpened = "  – live desk (WebSocket) not opened, so skipped: "

    /// The one line of a run against the demo server, which serves no desk; not a step.
    static let liveDeskNotServed =
        "  – live desk (WebSocket): served only beside the embedded backend; demo_server.py has no WebSocket"

    /// A run's lines without the live desk's, and with the final count of steps less the desk's, so that
    /// ``expectedLines`` holds whether the desk opened or not; and the desk's lines.
    static func splittingLiveDesk(_ lines: [String]) -> (others: [String], desk: [String]) {
        let isDesk = { (line: String) in ["  ✓ ", "  ✗ ", "  – "].contains { line.hasPrefix($0 + "live desk") } }
        var others = lines.filter { !isDesk($0) }
        let desk = lines.filter(isDesk)
        let deskSteps = desk.filter { !$0.hasPrefix("  – ") }.count
        let prefix = "Done: all "
        if let last = others.last, last.hasPrefix(prefix),
            let count = Int(last.dropFirst(prefix.count).prefix { $0.isNumber })
        {
            others[others.count - 1] = "\(prefix)\(count - deskSteps) steps went as expected."
        }
        return (others, desk)
    }

    /// Whether `desk` is what a run against the embedded backend writes: the desk's four steps (both transports open
    /// WebSockets on Linux, and URLSessionWebSocketTask does on Apple platforms).
    static func isEmbeddedLiveDesk(_ desk: [String]) -> Bool {
        desk == liveDeskLines
    }

    @Test func runsTheWholeFlowAgainstTheEmbeddedBackend() async throws {
        let run = try await ChildProcess.run(BuiltProducts.fetchExample(), [])
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(
            Self.lines(run.output).first
                == "fetch-example: the embedded demo backend, in process through Session and URLSession")
        let (others, desk) = Self.splittingLiveDesk(Array(Self.lines(run.output).dropFirst()))
        #expect(others == Self.expectedLines)
        #expect(Self.isEmbeddedLiveDesk(desk), "\(desk)")
        #expect(run.errors.isEmpty)
    }

    @Test func runsTheSameFlowAgainstTheDemoServer() async throws {
        let run = try await DemoServer.with { server in
            try await ChildProcess.run(BuiltProducts.fetchExample(), ["--server", server.baseURL.absoluteString])
        }
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(Self.lines(run.output).first?.hasPrefix("fetch-example: the server at http://127.0.0.1:") == true)
        let (others, desk) = Self.splittingLiveDesk(Array(Self.lines(run.output).dropFirst()))
        #expect(others == Self.expectedLines)
        #expect(desk == [Self.liveDeskNotServed])
    }

    @Test func debugLogsEachAnswerToStandardError() async throws {
        let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--debug"])
        let all = Self.lines(run.errors)
        #expect(run.status == 0)
        // The live desk's handshakes, answered 101: the first, and the reconnection after the desk's restart.
        let desk = all.filter { $0.hasPrefix("GET ws://127.0.0.1:") && $0.contains("/live ") }
        #expect(desk.count == 2 && desk.allSatisfy { $0.contains("/live → 101 ") }, "\(desk)")
        let lines = all.filter { !desk.contains($0) }
        // 11 calls, and the notifications stream: its first connection, and the reconnection answered 204.
        #expect(lines.count == 13 && lines.allSatisfy { $0.contains(" → ") })
        #expect(
            lines.filter { $0.contains("/api/notifications → ") }.map { $0.contains("→ 204 No Content") } == [
                false, true,
            ])
        #expect(
            lines.first?.hasPrefix("POST http://") == true && lines.first?.contains("/api/users/login → 200 OK") == true
        )
    }

    @Test func verbosePrintsEachExchangeWithItsPhasesAndTrace() async throws {
        let output = Captured<String>()
        let errors = Captured<String>()
        let status = await FetchExampleCommand.run(
            arguments: ["--verbose"], output: output.capture, errors: errors.capture)
        #expect(status == 0, "the flow's output:\n\(output.values.joined(separator: "\n"))")
        let lines = errors.values.filter { $0.contains(", attempt ") }
        // 11 calls, the notifications stream's two connections and the live desk's two handshakes (it reconnects
        // once), one line each.
        #expect(lines.count == 15, "\(lines)")
        let shape =
            #/^(GET|POST|PUT|PATCH|DELETE) \S+ (→ \d{3}|failed: .+), attempt \d+: [^;]+(; trace [0-9a-f]{32} span [0-9a-f]{16})?$/#
        for line in lines {
            #expect(line.wholeMatch(of: shape) != nil, "not the verbose line's shape: \(line)")
        }
        // Calls after the login go through `.traceContext()`: each in a trace of its own.
        let employees = lines.filter { $0.contains("/api/employees ") }
        try #require(!employees.isEmpty)
        #expect(employees.allSatisfy { $0.contains("; trace ") })
        let traces = Set(lines.compactMap { $0.firstMatch(of: #/trace ([0-9a-f]{32})/#)?.1 })
        #expect(traces.count >= 10)
    }

    @Test func anUnreachableServerFailsWithAClearMessage() async throws {
        let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--server", "http://127.0.0.1:1/"])
        #expect(run.status == 1)
        #expect(
            run.output.contains(
                "  ✗ log in as ada: POST http://127.0.0.1:1/api/users/login: could not reach the server: "))
        #expect(run.errors == "fetch-example: 1 step(s) did not go as expected (marked ✗ above)\n")
    }

    @Test func helpDocumentsTheFlags() async throws {
        let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--help"])
        #expect(run.status == 0)
        for flag in [
            "--server <url>", "--embedded", "--config <file>", "--max-po-expense", "--debug", "--verbose",
            "--har <file>",
            "demo_server.py",
        ] {
            #expect(run.output.contains(flag), "--help does not mention \(flag)")
        }
    }

    @Test func aWrongFlagExitsWithUsageStatus() async throws {
        let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--sever", "http://127.0.0.1:8080/"])
        #expect(run.status == 64)
        #expect(run.errors == "fetch-example: unknown argument --sever\nRun fetch-example --help for the flags.\n")
    }

    @Test func runsInProcessWithFlagsThatOverrideTheConfiguration() async {
        let output = Captured<String>()
        let status = await FetchExampleCommand.run(
            arguments: ["--max-po-expense", "100"], output: output.capture, errors: output.capture)
        #expect(status == 0, "the flow's output:\n\(output.values.joined(separator: "\n"))")
        #expect(output.values.contains("  ✓ place an order of 2 × Laptop stand (99.80): accepted as PO-1003"))
    }

    @Test func aFailedLoginStopsTheFlowAndSaysWhy() async {
        let output = Captured<String>()
        let status = await FetchExampleCommand.run(
            arguments: ["--password", "guess"], output: output.capture, errors: output.capture)
        #expect(status == 1)
        #expect(
            Array(output.values.dropFirst(2)) == [
                "  ✗ log in as ada: the server answered 401 (unauthorized): wrong username or password",
                "Stopped: every other call needs a login.",
                "fetch-example: 1 step(s) did not go as expected (marked ✗ above)",
            ])
    }
}
