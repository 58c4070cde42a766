import Foundation
import Testing

/// The README's Performance table quotes the latest measurements, the runs under "Measured" in
/// `Benchmarks/README.md`: each figure of the table is computed here from those runs and must appear in the README as
/// it is. A new measurement that moves a figure fails this test until the README says the new figure.
@Suite struct PerformanceClaimsTests {
    /// One row of a measured table: the measure's name and its Fetch, Baseline and Ratio columns.
    struct Row {
        let measure: String
        let fetch: String
        let baseline: String
        let ratio: String

        var ratioValue: Double? { Double(ratio.replacingOccurrences(of: "x", with: "")) }
    }

    /// The tables under `## Measured`, in order: fetch-bench's own server, then nginx.
    static func measuredRuns() throws -> [[Row]] {
        let text = try ReadmeClaimsTests.text("Benchmarks/README.md")
        let measured = try #require(text.components(separatedBy: "\n## Measured\n").last)
        var runs: [[Row]] = []
        var current: [Row]?
        for line in measured.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                if let rows = current {
                    runs.append(rows)
                    current = nil
                }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[0] != "Measure", !cells[0].hasPrefix("---") else {
                current = current ?? []
                continue
            }
            current = (current ?? []) + [Row(measure: cells[0], fetch: cells[1], baseline: cells[2], ratio: cells[3])]
        }
        if let rows = current {
            runs.append(rows)
        }
        // Whole fetch-bench runs only: a table of one group (`--only streaming`) is quoted elsewhere.
        return runs.filter { run in run.contains { $0.measure.hasPrefix("Control: hand-written vs itself") } }
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// `low–high` with `digits` decimals, the low end rounded down and the high end up, or one value when they meet.
    static func range(_ values: [Double], digits: Int, outward: Bool = false) -> String {
        let scale = pow(10, Double(digits))
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        let lowText = format(outward ? (low * scale).rounded(.down) / scale : low, digits)
        let highText = format(outward ? (high * scale).rounded(.up) / scale : high, digits)
        return lowText == highText ? lowText : "\(lowText)–\(highText)"
    }

    @Test func theTableQuotesTheLatestMeasuredRuns() throws {
        let runs = try Self.measuredRuns()
        try #require(runs.count == 2, "Benchmarks/README.md should show a run on the built-in server and on nginx")
        let readme = try ReadmeClaimsTests.text("README.md")
        let rows = runs.flatMap { $0 }
        func values(_ rows: [Row], _ column: (Row) -> String) -> [Double] {
            rows.compactMap { Double(column($0).replacingOccurrences(of: "x", with: "")) }
        }

        // Session over HTTP, per server, and the control rows.
        let overHTTP = runs.map { run in
            Self.range(
                run.filter {
                    $0.measure.hasPrefix("Session ")
                        && ($0.measure.contains(", loopback") || $0.measure.contains(", server"))
                }.compactMap(\.ratioValue), digits: 3)
        }
        let controls = runs.map { run in
            Self.format(
                run.first { $0.measure.hasPrefix("Control:") && !$0.measure.contains("in-process") }?.ratioValue ?? 0, 2
            )
        }
        #expect(
            readme.contains(
                "| \(overHTTP.joined(separator: "× / "))× (control: \(controls.joined(separator: "× / "))×) |"))

        // What Fetch adds in process: its microseconds, the hand-written request's, and the ratios.
        let added = rows.filter { $0.measure.hasPrefix("Fetch's added time per request") }
            .flatMap { $0.fetch.split(separator: "/").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        let handWritten = values(
            rows.filter { $0.measure.hasPrefix("Session ") && $0.measure.contains("sequential, in-process") },
            \.baseline
        ).map { (1e6 / $0 / 10).rounded() * 10 }
        let inProcess = rows.filter { $0.measure.hasPrefix("Session ") && $0.measure.contains("in-process") }
            .compactMap(\.ratioValue)
        #expect(added.count == 4)
        #expect(
            readme.contains(
                "| \(Self.range(added, digits: 0, outward: true)) µs of \(Self.range(handWritten, digits: 0)) µs "
                    + "(\(Self.range(inProcess, digits: 2, outward: true))×) |"))

        // The parse path, per payload.
        let parse = ["1 KB", "100 KB", "1 MB"].map { size in
            Self.range(
                rows.filter { $0.measure == "Decodable parse vs bare JSONDecoder, \(size) (µs)" }.compactMap(
                    \.ratioValue),
                digits: 2)
        }
        #expect(readme.contains("| \(parse.joined(separator: "× / "))× |"))

        // The time a completion holds the callback queue.
        let queue = ["1 KB", "1 MB"].map { size in
            Self.range(
                values(rows.filter { $0.measure == "Callback-queue time per response, \(size) (µs)" }, \.fetch),
                digits: 1)
        }
        #expect(readme.contains("| \(queue.joined(separator: " µs / ")) µs |"))

        // Deduplication.
        let backendRequests = rows.filter { $0.measure.hasPrefix("100 concurrent identical GETs") }.map(\.fetch)
        #expect(backendRequests == ["1", "1"])
        #expect(readme.contains("| 1 request at the backend |"))

        // A fresh cache hit against a round trip.
        let cache = rows.filter { $0.measure.hasPrefix("Cache fresh hit") }
        let hit = Self.range(values(cache, \.fetch), digits: 0, outward: true)
        let roundTrip = Self.range(values(cache, \.baseline).map { $0 / 1000 }, digits: 1)
        let speedUps = values(cache, \.ratio)
        let speedUp = Int((speedUps.reduce(0, +) / Double(max(speedUps.count, 1)) / 50).rounded()) * 50
        #expect(readme.contains("| \(hit) µs vs \(roundTrip) ms: ≈ \(speedUp)× |"))
    }

    /// The paragraph under the table: one request at a time against the hand-written code and against
    /// `URLSession.data(for:)`, and how many of the eight-at-a-time rows fell below their line.
    @Test func theParagraphUnderTheTableQuotesTheSameRuns() throws {
        let rows = try Self.measuredRuns().flatMap { $0 }
        let readme = try ReadmeClaimsTests.text("README.md").split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        func ratios(_ kind: String) -> [Double] {
            rows.filter { row in
                ["Session callback, \(kind),", "Session async, \(kind),"].contains { row.measure.hasPrefix($0) }
                    && !row.measure.contains("in-process")
            }.compactMap(\.ratioValue)
        }
        let sequential = Self.range(ratios("sequential"), digits: 2)
        let platform = Self.range(
            rows.filter { $0.measure.hasPrefix("Session async vs URLSession.data(for:) + JSONDecoder, sequential") }
                .compactMap(\.ratioValue), digits: 2)
        #expect(readme.contains("(\(sequential)× the hand-written code, \(platform)× `async` `URLSession.data(for:)`)"))

        let concurrent = ratios("8 concurrent")
        let short = concurrent.filter { $0 < 0.97 }
        let words = ["none", "one", "two", "three", "four"]
        try #require(concurrent.count == 4 && short.count < words.count)
        let claim =
            short.isEmpty
            ? "none of the four rows read below 0.97×"
            : "\(words[short.count]) of the four rows read \(Self.range(short, digits: 3))× in these two runs"
        #expect(readme.contains(claim), "expected the README to say: \(claim)")
    }
}
