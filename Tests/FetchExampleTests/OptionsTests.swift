import Foundation
import Testing

@testable import FetchExample

@Suite struct OptionsTests {
    @Test func readsEveryFlag() throws {
        let options = try Options(arguments: [
            "--server", "http://127.0.0.1:8080/", "--config", "/tmp/c.json", "--username", "grace", "--password", "p",
            "--max-po-expense", "249.90", "--timeout", "2.5", "--debug", "--har", "/tmp/run.har", "--verbose",
        ])
        #expect(options.server?.absoluteString == "http://127.0.0.1:8080/")
        #expect(options.configurationFile?.path == "/tmp/c.json")
        #expect(options.username == "grace" && options.password == "p")
        #expect(options.maxPOExpense == Money(cents: 24_990) && options.timeout == 2.5 && options.debug == true)
        #expect(options.harFile?.path == "/tmp/run.har" && options.verbose)
    }

    @Test func noFlagsOverrideNothing() throws {
        let options = try Options(arguments: [])
        #expect(options.server == nil && options.configurationFile == nil && !options.embedded && !options.help)
        #expect(options.username == nil && options.password == nil && options.maxPOExpense == nil)
        #expect(options.timeout == nil && options.debug == nil && options.harFile == nil && !options.verbose)
    }

    @Test(arguments: [
        (["--bogus"], "unknown argument --bogus"),
        (["--server"], "--server needs a value"),
        (["--har"], "--har needs a value"),
        (
            ["--server", "127.0.0.1:8080"],
            "the server must be an http or https URL such as http://127.0.0.1:8080/, not 127.0.0.1:8080"
        ),
        (["--max-po-expense", "lots"], "--max-po-expense expects an amount such as 5000 or 249.90, not lots"),
        (["--timeout", "0"], "--timeout expects a number of seconds above 0, not 0"),
        (["--embedded", "--server", "http://127.0.0.1:1/"], "--server and --embedded exclude each other"),
    ])
    func refusesAWrongCommandLineSayingWhy(arguments: [String], message: String) {
        #expect {
            try Options(arguments: arguments)
        } throws: { error in
            (error as? UsageError)?.description == message
        }
    }
}
