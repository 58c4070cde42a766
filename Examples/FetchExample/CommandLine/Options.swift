import Foundation

/// The command-line flags of `fetch-example`; each overrides the configuration file's setting of the same name.
struct Options: Equatable {
    var configurationFile: URL?
    var server: URL?
    var embedded = false
    var username: String?
    var password: String?
    var maxPOExpense: Money?
    var timeout: TimeInterval?
    var debug: Bool?
    /// Whether `--verbose` prints each exchange with the server with its phases.
    var verbose = false
    /// The HAR file `--har` records the run into, or `nil` to record nothing.
    var harFile: URL?
    var help = false

    static let usage = """
        USAGE: fetch-example [--server <url> | --embedded] [--config <file>] [options]

        Runs a whole client of a demo company API built on Fetch: log in, load every list (callbacks on a callback
        queue, through a delegate), then read a user, place a purchase order and have one refused, read the live
        notifications, talk on the live desk (a WebSocket), try a wrong password and log out (async/await). By
        default it talks to an embedded backend in process, through a real Session and URLSession, with the desk on
        a WebSocket server on 127.0.0.1; with --server it talks HTTP to a real server such as the demo server, which
        has no WebSocket, so the desk is skipped:

            python3 Examples/FetchExample/demo_server.py --port 8080
            swift run fetch-example --server http://127.0.0.1:8080/

        OPTIONS:
          --server <url>          The base URL of the API server (default: the configuration's "server"; when it
                                  is null, the embedded backend).
          --embedded              Use the embedded backend even when the configuration names a server.
          --config <file>         The configuration file (default: Examples/FetchExample/configuration.json).
          --username <name>       The user to log in as (default: the configuration's "username").
          --password <password>   That user's password (default: the configuration's "password").
          --max-po-expense <amount>
                                  The most a purchase order may cost, such as 5000 or 249.90; dearer orders are
                                  refused before sending (default: the configuration's "maxPOExpense").
          --timeout <seconds>     How long to wait for each answer (default: the configuration's "timeout").
          --debug                 Log each request and its outcome to standard error.
          --verbose               Print each exchange with the server to standard error, one line each: its
                                  outcome, the attempt, where its time went (DNS, connect, TLS, first and last
                                  byte, as far as the transport can tell), and its W3C trace and span ids.
          --har <file>            Record every exchange with the server into a HAR 1.2 file (added to the file
                                  when it is one already), with Authorization and cookies written as REDACTED.
                                  Browsers' developer tools open it (Network panel, import HAR), and tests replay
                                  it with MockPerformer(replaying:).
          -h, --help              Show this help.

        EXIT STATUS: 0 when every step went as expected, 1 when one did not, 64 for a usage or configuration error.
        """

    /// Reads the flags, without the program name.
    ///
    /// - Throws: ``UsageError`` for an unknown flag, a missing value or a value that is not valid.
    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "-h", "--help":
                help = true
            case "--debug":
                debug = true
            case "--verbose":
                verbose = true
            case "--embedded":
                embedded = true
            case "--har":
                harFile = URL(fileURLWithPath: try Self.value(of: flag, in: &remaining))
            case "--config":
                configurationFile = URL(fileURLWithPath: try Self.value(of: flag, in: &remaining))
            case "--server":
                server = try Self.serverURL(try Self.value(of: flag, in: &remaining))
            case "--username":
                username = try Self.value(of: flag, in: &remaining)
            case "--password":
                password = try Self.value(of: flag, in: &remaining)
            case "--max-po-expense":
                let text = try Self.value(of: flag, in: &remaining)
                guard let amount = Money(text), amount.cents >= 0 else {
                    throw UsageError("--max-po-expense expects an amount such as 5000 or 249.90, not \(text)")
                }
                maxPOExpense = amount
            case "--timeout":
                let text = try Self.value(of: flag, in: &remaining)
                guard let seconds = TimeInterval(text), seconds > 0, seconds.isFinite else {
                    throw UsageError("--timeout expects a number of seconds above 0, not \(text)")
                }
                timeout = seconds
            default:
                throw UsageError("unknown argument \(flag)")
            }
        }
        if embedded, server != nil {
            throw UsageError("--server and --embedded exclude each other")
        }
    }

    /// An absolute `http` or `https` URL, for `--server` and the configuration's `server`.
    ///
    /// - Throws: ``UsageError`` when `text` is not one.
    static func serverURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else {
            throw UsageError("the server must be an http or https URL such as http://127.0.0.1:8080/, not \(text)")
        }
        return url
    }

    private static func value(of flag: String, in remaining: inout ArraySlice<String>) throws -> String {
        guard let value = remaining.popFirst() else {
            throw UsageError("\(flag) needs a value")
        }
        return value
    }
}

/// A command line or a configuration that `fetch-example` cannot run with.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
