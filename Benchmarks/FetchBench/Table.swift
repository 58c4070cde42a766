import Foundation

/// The one table `fetch-bench` prints: a row per measure, Fetch beside the baseline, the ratio and the target.
struct Table {
    enum Target {
        case atLeast(Double)
        case atMost(Double)
    }

    private struct Row {
        var measure: String
        var fetch: String
        var baseline: String
        var ratio: String
        var target: String
        var result: String
        /// The process's CPU time per call of each side, in microseconds (`getrusage`), "Fetch / baseline".
        var cpu: String
    }

    private var rows: [Row] = []
    private var allPassed = true

    /// A row comparing Fetch's median (`a`) with the baseline's (`b`), judged against `target` when there is one.
    mutating func ratio(_ measure: String, _ values: Comparison, unit: String, target: Target?) {
        let ratio = values.ratio
        let (text, passed): (String, Bool?) =
            switch target {
            case .atLeast(let bound): (String(format: ">= %.2fx", bound), ratio >= bound)
            case .atMost(let bound): (String(format: "<= %.2fx", bound), ratio <= bound)
            case nil: ("", nil)
            }
        let format = unit == "µs" ? "%.1f" : "%.0f"
        add(
            Row(
                measure: measure, fetch: String(format: format, values.a), baseline: String(format: format, values.b),
                ratio: String(format: "%.3fx", ratio), target: text, result: passed.map { $0 ? "PASS" : "FAIL" } ?? "",
                cpu: Self.cpu(values.cpuA, values.cpuB)),
            passed: passed ?? true)
    }

    /// The CPU column's cell: each side's CPU time per call, "–" for a side not measured, empty for neither.
    static func cpu(_ a: Double?, _ b: Double?) -> String {
        guard a != nil || b != nil else {
            return ""
        }
        func shown(_ value: Double?) -> String {
            guard let value, value.isFinite else {
                return "–"
            }
            return value < 10 ? String(format: "%.1f", value) : String(format: "%.0f", value)
        }
        return "\(shown(a)) / \(shown(b))"
    }

    /// A row with a value of Fetch's, and a target when there is one.
    mutating func value(
        _ measure: String,
        _ fetch: String,
        baseline: String = "",
        ratio: String = "",
        target: String = "",
        passed: Bool? = nil,
        cpu: String = ""
    ) {
        let result = passed.map { $0 ? "PASS" : "FAIL" } ?? ""
        add(
            Row(
                measure: measure, fetch: fetch, baseline: baseline, ratio: ratio, target: target, result: result,
                cpu: cpu),
            passed: passed ?? true)
    }

    private mutating func add(_ row: Row, passed: Bool) {
        rows.append(row)
        allPassed = allPassed && passed
    }

    /// The table as Markdown, so that it can be pasted into Benchmarks/README.md as is; `judged` says whether the run
    /// was long enough for a verdict on its timing targets.
    func render(title: String, footer: String, judged: Bool) -> String {
        let header = Row(
            measure: "Measure", fetch: "Fetch", baseline: "Baseline", ratio: "Ratio", target: "Target",
            result: "Result", cpu: "CPU µs/call")
        let all = [header] + rows
        let columns: [(Row) -> String] = [\.measure, \.fetch, \.baseline, \.ratio, \.target, \.result, \.cpu]
        let widths = columns.map { column in all.map { column($0).count }.max() ?? 0 }
        func line(_ row: Row) -> String {
            let cells = zip(columns, widths).enumerated().map { index, pair in
                let text = pair.0(row)
                let padding = String(repeating: " ", count: pair.1 - text.count)
                return index == 0 ? text + padding : padding + text
            }
            return "| " + cells.joined(separator: " | ") + " |"
        }
        let rule =
            "|"
            + widths.enumerated().map { index, width in
                index == 0 ? String(repeating: "-", count: width + 2) : String(repeating: "-", count: width + 1) + ":"
            }.joined(separator: "|") + "|"
        let verdict =
            judged
            ? (allPassed ? "every target met" : "some targets missed")
            : "too few requests to judge the timing targets: run without --quick for that"
        return ([title, "", line(header), rule] + rows.map(line) + ["", "\(footer); \(verdict)"]).joined(
            separator: "\n")
    }
}
