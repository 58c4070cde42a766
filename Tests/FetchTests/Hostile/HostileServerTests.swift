import Fetch
import Foundation
import SpawnSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 23's hostile-server suite: no server can crash Fetch, hold a call past its timeout, or make the process
/// buffer without bound, on any `Session` face.
///
/// Every behaviour of `Tests/FetchTests/Support/Server/hostile_server.py` (``HostileBehaviour/all``) runs on every face
/// (``SessionFace``) in a child process per face, with a 3 s timeout and an 8 MiB `maximumResponseSize`. Each test
/// case here is one face and one behaviour, and asserts what the child measured: the process lived, the call ended
/// as expected (a `FetchError` naming the request, or the right success), within ``HostileBounds/timeBound``, and
/// the process's peak memory rose by less than ``HostileBounds/memoryBound``. A crash or a hang fails that one case
/// and a new child goes on with the next behaviour.
///
/// `FETCH_HOSTILE_ONLY=cache-age,sse-` runs only the behaviours with those names or prefixes;
/// `FETCH_HOSTILE_REPORT=1` prints a line per face and behaviour (`HOSTILE <face> <behaviour> <outcome> …`).
@Suite(
    .enabled(if: ChildSuiteRun.isAvailable && MemoryMeter.isAvailable, "needs /proc/self/exe and clear_refs (Linux)"),
    .disabled(if: ThreadSanitizer.isActive, "its memory bounds would measure Thread Sanitizer's shadow memory")
)
struct HostileServerTests {
    static let isChild: Bool = {
        guard ProcessInfo.processInfo.environment[HostileChild.variable] == "1" else {
            return false
        }
        Spawn.closeInheritedSockets()
        return true
    }()

    @Test(.disabled(if: isChild), arguments: SessionFace.allCases, HostileBehaviour.all)
    func noHostileServerCrashesHoldsOrBloatsTheCall(_ face: SessionFace, _ behaviour: HostileBehaviour) async throws {
        guard HostileBehaviour.selected.contains(where: { $0.name == behaviour.name }) else {
            return  // left out by FETCH_HOSTILE_ONLY
        }
        let verdicts = await HostileRuns.shared.verdicts(for: face)
        let verdict = try #require(verdicts[behaviour.name], "\(face) ran no \(behaviour.name)")
        let label = "\(behaviour.name) on \(face.testDescription)"
        let result: HostileResult
        switch verdict {
        case .died(let status, let output):
            let death = "\(label): the process died (status \(status)) in this behaviour; its last lines:\n\(output)"
            #if canImport(FoundationNetworking) && !compiler(>=6.4)
                if let defect = behaviour.urlSessionDefect, face.isURLSession {
                    withKnownIssue(Comment(rawValue: defect)) { Issue.record(Comment(rawValue: death)) }
                    return
                }
            #endif
            Issue.record(Comment(rawValue: death))
            return
        case .killed(let output):
            Issue.record(
                "\(label): the child printed no end within \(HostileBounds.watchdog); its last lines:\n\(output)")
            return
        case .finished(let finished):
            result = finished
        }
        let seen = "\(result.kind) after \(result.milliseconds) ms: \(result.message)"
        switch (behaviour.expectation, result.outcome) {
        case (_, .hung):
            Issue.record(
                "\(label): no outcome within \(HostileBounds.hardDeadline) (timeout \(HostileBounds.timeout) s)")
        case (.success, .error):
            Issue.record("\(label): expected \(behaviour.expectation), got \(seen)")
        case (.failure, .ok):
            Issue.record("\(label): expected \(behaviour.expectation), got \(seen)")
        case (_, .error):
            #expect(!result.kind.hasPrefix("not a FetchError"), "\(label): \(seen)")
            #expect(
                result.message.contains("\(result.method) ") && result.message.contains(result.path),
                "\(label): the error does not name \(result.method) \(result.path): \(result.message)")
        case (_, .ok):
            break
        }
        let bound = behaviour.call == .eventsWindow ? HostileBounds.eventsWindow + .seconds(5) : HostileBounds.timeBound
        #expect(
            result.outcome == .hung || .milliseconds(result.milliseconds) <= bound,
            "\(label): took \(result.milliseconds) ms, past its bound of \(bound) (\(seen))")
        #expect(
            result.memoryGrowth < HostileBounds.memoryBound,
            """
            \(label): the process grew by \(result.memoryGrowth >> 20) MiB, past \(HostileBounds.memoryBound >> 20) MiB \
            (\(result.outcome == .hung ? "by its deadline" : seen))
            """)
        if behaviour.call == .eventsWindow, let connections = result.connections {
            #expect(
                connections <= HostileBounds.maximumConnections,
                "\(label): \(connections) connections in \(HostileBounds.eventsWindow): a reconnection loop")
        }
    }

    /// The issue's finding: a body cut midway failed one way on URLSession and another on libcurl. Each cut body
    /// fails with the same error (the same case, the same `URLError` code) on every face.
    @Test(.disabled(if: isChild), arguments: HostileBehaviour.all.filter(\.failsAlikeOnEveryFace))
    func aCutBodyFailsWithTheSameErrorOnEveryFace(_ behaviour: HostileBehaviour) async throws {
        guard HostileBehaviour.selected.contains(where: { $0.name == behaviour.name }) else {
            return  // left out by FETCH_HOSTILE_ONLY
        }
        var kinds: [String: [String]] = [:]
        for face in SessionFace.allCases {
            let verdicts = await HostileRuns.shared.verdicts(for: face)
            if case .finished(let result)? = verdicts[behaviour.name], result.outcome == .error {
                kinds[result.kind, default: []].append(face.rawValue)
            }
        }
        try #require(!kinds.isEmpty, "\(behaviour.name) failed on no face")
        #expect(kinds.count == 1, "\(behaviour.name) fails differently by face: \(kinds.sorted { $0.key < $1.key })")
    }

    /// The child's side: runs the behaviours named in `FETCH_HOSTILE_BEHAVIOURS` on `FETCH_HOSTILE_FACE`, against
    /// a hostile server of its own, printing `BEGIN <name>` and `END <name> <json>` for each.
    @Test(.enabled(if: isChild))
    func runsTheBehavioursInAChild() async throws {
        let environment = ProcessInfo.processInfo.environment
        let face = try #require(environment[HostileChild.faceVariable].flatMap(SessionFace.init(rawValue:)))
        let names = environment[HostileChild.behavioursVariable]?.split(separator: ",") ?? []
        let behaviours = try names.map { name in
            try #require(HostileBehaviour.named(String(name)), "no behaviour \(name)")
        }
        let server = try HostileServer()
        for behaviour in behaviours {
            Self.emit("BEGIN \(behaviour.name)")
            let name = behaviour.name
            let result = try await HostileProbe.run(behaviour, on: face, server: server) { hung in
                Self.emit("END \(name) \(Self.json(hung))")
                _exit(0)  // at once: the hung call may hold the threads an orderly exit would wait for
            }
            Self.emit("END \(behaviour.name) \(Self.json(result))")
        }
    }

    /// `result` on one line.
    private static func json(_ result: HostileResult) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return String(decoding: try encoder.encode(result), as: UTF8.self)
        } catch {
            return "{\"unencodable\": \(String(describing: error).debugDescription)}"
        }
    }

    /// Writes `line` at once (not through `print`'s buffer), so that the parent has it even if the next behaviour
    /// kills the process.
    private static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
