import Foundation

/// The command line of `fetch-bench`.
struct Options {
    var quick = false
    var server: URL?
    var problem: String?
    /// The row groups to run (`--only curl,pipeline`); empty for all of them.
    var only: Set<String> = []

    /// The names `--only` takes.
    static let groups = [
        "throughput", "overhead", "parse", "callback-queue", "pipeline", "dedup", "cache", "resume", "curl",
    ]

    init(_ arguments: ArraySlice<String>) {
        var arguments = arguments
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--only":
                let names = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
                guard !names.isEmpty, names.allSatisfy(Self.groups.contains) else {
                    problem = "--only takes a comma-separated list of \(Self.groups.joined(separator: ", "))"
                    return
                }
                only = Set(names)
            case "--server":
                guard let value = arguments.popFirst(), let url = URL(string: value), url.scheme != nil else {
                    problem = "--server needs an absolute URL such as http://127.0.0.1:8080/items-1k"
                    return
                }
                server = url
            default:
                problem = "unknown argument \(argument)"
                return
            }
        }
    }

    /// Whether the rows of `group` run.
    func runs(_ group: String) -> Bool {
        only.isEmpty || only.contains(group)
    }

    /// Requests per side per round (sequential; twice as many at 8 concurrent).
    var requests: Int { quick ? 60 : 150 }

    /// Rounds per comparison; each side's median is reported.
    var rounds: Int { quick ? 3 : 31 }

    /// Bytes parsed per side per round.
    var parseBytes: Int { quick ? 1_000_000 : 5_000_000 }

    var title: String {
        var title = "fetch-bench\(quick ? " --quick" : "")"
        if let server {
            title += " --server \(server.absoluteString)"
        }
        if !only.isEmpty {
            title += " --only \(only.sorted().joined(separator: ","))"
        }
        #if DEBUG
            title += " (DEBUG build: ratios are not meaningful; use swift run -c release)"
        #endif
        return title + ", \(ProcessInfo.processInfo.activeProcessorCount) cores"
    }
}
