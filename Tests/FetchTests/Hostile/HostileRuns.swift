import Foundation

/// Runs every behaviour on each face in child processes of this test binary, once per face for the whole test
/// process, however many test cases ask.
///
/// A child runs the behaviours it is given, in order, printing `BEGIN <name>` before each and `END <name> <json>`
/// after it. When a child dies or hangs in a behaviour, that behaviour gets its verdict and a new child goes on with
/// the rest, so that one crash costs one behaviour, not the face.
actor HostileRuns {
    static let shared = HostileRuns()

    private var runs: [SessionFace: Task<[String: HostileVerdict], Never>] = [:]
    /// The run started last: each face's run waits for it, so that one face's children run at a time and leave the
    /// rest of the suite some of the two cores.
    private var lastRun: Task<[String: HostileVerdict], Never>?

    /// The verdict of every behaviour on `face`, by name.
    func verdicts(for face: SessionFace) async -> [String: HostileVerdict] {
        if let run = runs[face] {
            return await run.value
        }
        let previous = lastRun
        let run = Task {
            _ = await previous?.value
            return await Self.runEveryBehaviour(on: face)
        }
        runs[face] = run
        lastRun = run
        return await run.value
    }

    /// How many children run one face's behaviours side by side, each a share of them: most of a behaviour's time
    /// is spent waiting on a timeout, so two children halve the face's time.
    static let childrenPerFace = 2

    private static func runEveryBehaviour(on face: SessionFace) async -> [String: HostileVerdict] {
        let behaviours = HostileBehaviour.selected
        let alone = behaviours.filter { face.isURLSession && $0.holdsURLSessionQueue }
        let shared = behaviours.filter { !(face.isURLSession && $0.holdsURLSessionQueue) }
        let verdicts = await withTaskGroup(of: [String: HostileVerdict].self) { group in
            for share in 0..<childrenPerFace {
                let names = shared.indices.filter { $0 % childrenPerFace == share }.map { shared[$0].name }
                group.addTask { await run(names, on: face) }
            }
            for behaviour in alone {
                group.addTask { await run([behaviour.name], on: face) }
            }
            var all: [String: HostileVerdict] = [:]
            for await verdicts in group {
                all.merge(verdicts) { $1 }
            }
            return all
        }
        if ProcessInfo.processInfo.environment["FETCH_HOSTILE_REPORT"] == "1" {
            for behaviour in behaviours {
                print("HOSTILE \(face.rawValue) \(behaviour.name) \(verdicts[behaviour.name].map(summary) ?? "none")")
            }
        }
        return verdicts
    }

    /// Runs the behaviours `names`, in order, in as many children as it takes: after a child dies or hangs in
    /// one, the next goes on with those that have no verdict yet.
    private static func run(_ names: [String], on face: SessionFace) async -> [String: HostileVerdict] {
        var verdicts: [String: HostileVerdict] = [:]
        var pending = names
        var retried = false
        while !pending.isEmpty {
            let child: HostileChild
            do {
                child = try HostileChild(face: face, behaviours: pending)
            } catch {
                for name in pending {
                    verdicts[name] = .died(status: -1, output: "the child did not start: \(error)")
                }
                break
            }
            await child.collect(into: &verdicts)
            if child.begunAny {
                retried = false
            } else {
                guard retried else {
                    // The child began no behaviour: try once more before taking it for one that cannot run.
                    retried = true
                    continue
                }
                // Twice no behaviour at all (it cannot start its server, say): another child would not either.
                for name in pending {
                    verdicts[name] = .died(status: child.status, output: child.outputTail)
                }
            }
            pending = pending.filter { verdicts[$0] == nil }
        }
        return verdicts
    }

    /// A verdict in one line, for the table that `FETCH_HOSTILE_REPORT=1` prints.
    private static func summary(_ verdict: HostileVerdict) -> String {
        switch verdict {
        case .finished(let result):
            let connections = result.connections.map { " \($0) connections" } ?? ""
            return "\(result.outcome.rawValue) \(result.kind) \(result.milliseconds) ms"
                + " \(result.memoryGrowth >> 20) MiB\(connections)"
        case .died(let status, let output):
            let fatal = output.split(separator: "\n").first { $0.contains("Fatal error") } ?? ""
            return "died (status \(status)) \(fatal)"
        case .killed:
            return "killed by the watchdog"
        }
    }
}
