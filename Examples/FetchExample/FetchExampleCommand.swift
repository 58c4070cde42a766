import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `fetch-example`: a whole client of a demo company API built on Fetch, against an embedded backend or a server.
///
/// Run `swift run fetch-example --help` for the flags.
@main
struct FetchExampleCommand {
    static func main() async {
        let status = await run(arguments: Array(CommandLine.arguments.dropFirst()))
        exit(status)
    }

    /// Runs the command and returns its exit status: 0 when every step went as expected, 1 when one did not, 64 for
    /// a usage or configuration error.
    ///
    /// - Parameters:
    ///   - arguments: The flags, without the program name.
    ///   - output: Where the transcript goes; the default is standard output.
    ///   - errors: Where errors and debug logs go; the default is standard error.
    /// - Returns: The exit status.
    static func run(
        arguments: [String],
        output: @escaping @Sendable (String) -> Void = { print($0) },
        errors: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) async -> Int32 {
        let configuration: Configuration
        let harFile: URL?
        let verbose: Bool
        do {
            let options = try Options(arguments: arguments)
            if options.help {
                output(Options.usage)
                return 0
            }
            let file = options.configurationFile ?? ExampleFiles.configuration
            configuration = try Configuration.load(from: file).overridden(by: options)
            harFile = options.harFile
            verbose = options.verbose
        } catch {
            errors("fetch-example: \(error)\nRun fetch-example --help for the flags.")
            return 64
        }

        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout
        let baseURL: URL
        var liveDesk: LiveDeskServer?
        if let server = configuration.server {
            baseURL = server
            output("fetch-example: the server at \(server.absoluteString)")
        } else {
            let backend: DemoBackend
            do {
                backend = try DemoBackend(contentsOf: ExampleFiles.demoData)
            } catch {
                errors("fetch-example: cannot start the embedded backend: \(error)")
                return 64
            }
            baseURL = DemoURLProtocol.serve(backend)
            sessionConfiguration.protocolClasses = [DemoURLProtocol.self]
            output("fetch-example: the embedded demo backend, in process through Session and URLSession")
            // A WebSocket outlives its handshake, which a URLProtocol cannot serve: the live desk is a real socket on
            // loopback, checking the backend's tokens. Without it the flow skips the desk and says why.
            do {
                liveDesk = try LiveDeskServer(updates: backend.deskUpdates()) {
                    backend.reasonToRefuse(authorization: $0)
                }
            } catch {
                errors("fetch-example: the live desk is not served: \(error)")
            }
        }
        defer {
            if configuration.server == nil {
                DemoURLProtocol.stopServing(baseURL)
            }
            liveDesk?.stop()
        }

        // A command-line program's main queue does not run unless it is made to: callbacks go to a queue of our own.
        let callbackQueue = OperationQueue()
        callbackQueue.name = "fetch-example.callbacks"
        callbackQueue.maxConcurrentOperationCount = 1
        let session = Session(
            transport: URLSessionTransport(configuration: sessionConfiguration), callbackQueue: callbackQueue)
        // With --har, the recording goes outermost around the session, and the API stacks its authentication and
        // retries over it: the file gets one entry per exchange with the server, each request as a
        // MockPerformer(replaying:) in the session's place is asked it, with the Bearer tokens written as REDACTED.
        let performer: any RequestPerforming
        if let harFile {
            do {
                performer = try session.with(.record(to: harFile))
            } catch {
                errors("fetch-example: cannot record into \(harFile.path): \(error)")
                return 64
            }
            output("fetch-example: recording every exchange into \(harFile.path)")
        } else {
            performer = session
        }
        let api = API(
            baseURL: baseURL,
            performer: performer,
            maxPOExpense: configuration.maxPOExpense,
            onEvent: observer(debug: configuration.debug, verbose: verbose, to: errors)
        )
        let transcript = Transcript(write: output)
        let flow = DemoFlow(
            api: api, configuration: configuration, liveDeskURL: liveDesk?.baseURL, callbackQueue: callbackQueue,
            transcript: transcript)
        // The flow makes seven calls one after another (the dashboard's five at once); a GET that times out is
        // tried three times, with waits of about 0.5 s and 1 s between: 15 timeouts and 6 s of waits at worst. The
        // notifications stream adds about 0.7 s (three events 150 ms apart, a reconnection after 200 ms, a 204);
        // should its server stop answering mid-stream, the reconnections are ended by this bound too.
        let limit = configuration.timeout * 16 + 10
        guard await run(flow, cancelling: session, after: limit) else {
            errors("fetch-example: gave up: the flow did not finish within \(limit) s; its calls were cancelled")
            return 1
        }

        let failures = transcript.failureCount
        guard failures == 0 else {
            errors("fetch-example: \(failures) step(s) did not go as expected (marked ✗ above)")
            return 1
        }
        output("Done: all \(transcript.stepCount) steps went as expected.")
        return 0
    }

    /// What `--debug` and `--verbose` do with the API's events, or `nil` when neither is on.
    private static func observer(
        debug: Bool, verbose: Bool, to errors: @escaping @Sendable (String) -> Void
    ) -> (@Sendable (FetchEvent) -> Void)? {
        switch (debug, verbose) {
        case (false, false): nil
        case (true, false): debugLog(to: errors)
        case (false, true): verboseLog(to: errors)
        case (true, true):
            { [debugLog = debugLog(to: errors), verboseLog = verboseLog(to: errors)] event in
                debugLog(event)
                verboseLog(event)
            }
        }
    }

    /// What `--verbose` does with the API's events: one line per exchange with the server, with where its time
    /// went and its trace (see ``VerboseLine``).
    private static func verboseLog(to errors: @escaping @Sendable (String) -> Void) -> @Sendable (FetchEvent) -> Void {
        { event in
            guard event.name == .attemptFinished else {
                return
            }
            errors(VerboseLine(event).description)
        }
    }

    /// What `--debug` does with the API's events: one line per exchange with the server, such as
    /// `GET http://…/api/events → 200 OK, 412 bytes in 1.2 ms`, and one per wait before a retry.
    private static func debugLog(to errors: @escaping @Sendable (String) -> Void) -> @Sendable (FetchEvent) -> Void {
        { event in
            // The line of its outcome says that it started; the attempts' own events are `--verbose`'s.
            guard [.finished, .failed, .retrying].contains(event.name) else {
                return
            }
            errors(event.description)
        }
    }

    /// Runs `flow`, and returns `false` if it has not finished after `seconds`.
    ///
    /// Every call is bounded by its attempts' timeouts already; this bounds the whole flow too, in case something never
    /// answers: on expiry every call of `session` in flight is cancelled, which completes it, so the flow ends.
    private static func run(_ flow: DemoFlow, cancelling session: Session, after seconds: TimeInterval) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await flow.run()
                return true
            }
            group.addTask {
                do {
                    try await Task.sleep(for: .seconds(seconds))
                    return false
                } catch {
                    return true  // cancelled because the flow finished first
                }
            }
            let finished = await group.next() ?? true
            if !finished {
                session.cancelAllTasks()
            }
            group.cancelAll()
            return finished
        }
    }
}
