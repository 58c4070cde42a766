import Foundation

/// The command line of `fetch-bench`.
struct Options {
    var quick = false
    var server: URL?
    var problem: String?
    /// The groups of rows to run (`--only streaming,resume`); empty for all of them.
    var groups: Set<String> = []

    /// The groups of rows, in the order they run.
    static let allGroups = [
        "throughput", "shared", "overhead", "parse", "callback-queue", "pipeline", "download", "deduplication", "cache",
        "resume", "streaming", "curl", "scale", "websocket", "observing",
    ]

    init(_ arguments: ArraySlice<String>) {
        var arguments = arguments
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--server":
                guard let value = arguments.popFirst(), let url = URL(string: value), url.scheme != nil else {
                    problem = "--server needs an absolute URL such as http://127.0.0.1:8080/items-1k"
                    return
                }
                server = url
            case "--only":
                let names = arguments.popFirst()?.split(separator: ",").map(String.init) ?? []
                guard !names.isEmpty, names.allSatisfy(Self.allGroups.contains) else {
                    problem = "--only needs groups of rows among \(Self.allGroups.joined(separator: ", "))"
                    return
                }
                groups.formUnion(names)
            default:
                problem = "unknown argument \(argument)"
                return
            }
        }
    }

    /// Whether the rows of `group` run.
    func runs(_ group: String) -> Bool {
        groups.isEmpty || groups.contains(group)
    }

    /// The size of the streamed body of the streaming rows: 200 MB, 20 MB with --quick.
    var streamBytes: Int { quick ? 20_000_000 : 200_000_000 }

    /// Runs of each side of the streaming throughput row.
    var streamRounds: Int { quick ? 3 : 11 }

    /// Requests per side per round (sequential; twice as many at 8 concurrent).
    var requests: Int { quick ? 60 : 150 }

    /// Rounds per comparison; each side's median is reported.
    var rounds: Int { quick ? 3 : 31 }

    /// Bytes parsed per side per round.
    var parseBytes: Int { quick ? 1_000_000 : 5_000_000 }

    var title: String {
        var title = "fetch-bench\(quick ? " --quick" : "")"
        if !groups.isEmpty {
            title += " --only \(Self.allGroups.filter(groups.contains).joined(separator: ","))"
        }
        if let server {
            title += " --server \(server.absoluteString)"
        }
        #if DEBUG
            title += " (DEBUG build: ratios are not meaningful; use swift run -c release)"
        #endif
        return title + ", \(ProcessInfo.processInfo.activeProcessorCount) cores"
    }
}
