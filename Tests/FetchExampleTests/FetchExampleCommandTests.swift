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

    @Test func runsTheWholeFlowAgainstTheEmbeddedBackend() async throws {
        let run = try await ChildProcess.run(BuiltProducts.fetchExample(), [])
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(
            Self.lines(run.output).first
                == "fetch-example: the embedded demo backend, in process through Session and URLSession")
        #expect(Array(Self.lines(run.output).dropFirst()) == Self.expectedLines)
        #expect(run.errors.isEmpty)
    }

    @Test func runsTheSameFlowAgainstTheDemoServer() async throws {
        let run = try await DemoServer.with { server in
            try await ChildProcess.run(BuiltProducts.fetchExample(), ["--server", server.baseURL.absoluteString])
        }
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(Self.lines(run.output).first?.hasPrefix("fetch-example: the server at http://127.0.0.1:") == true)
        #expect(Array(Self.lines(run.output).dropFirst()) == Self.expectedLines)
    }

    @Test func debugLogsEachAnswerToStandardError() async throws {
        let run = try await ChildProcess.run(BuiltProducts.fetchExample(), ["--debug"])
        let lines = Self.lines(run.errors)
        #expect(run.status == 0)
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
            "--server <url>", "--embedded", "--config <file>", "--max-po-expense", "--debug", "--har <file>",
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
        #expect(status == 0)
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
